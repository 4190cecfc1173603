// The action of `promptline usage`, loaded only when the command runs (see usage.ts for its flags).

import { resolve } from "node:path"
import { writeFileAtomic } from "../atomic-write.js"
import { emptyUsageReport, type UsageReport, usageReport } from "../cache/usage-report.js"
import { diagnostic } from "../diagnostics.js"
import { FileError } from "../errors.js"
import type { CliIO } from "./io.js"
import { printDiagnostics, printJson } from "./print.js"
import { sinceTime } from "./since-option.js"
import { howToRecord, traceFolder } from "./trace-folder.js"
import type { UsageFlags } from "./usage.js"
import { renderUsageHtml, renderUsageText } from "./usage-render.js"

/** Prints (or writes) the usage of a trace folder; returns the exit code. */
export async function usageAction(dir: string | undefined, flags: UsageFlags, io: CliIO): Promise<number> {
  // The clock is read here, once, and only for a span (`--since 7d`).
  const since = flags.since !== undefined ? sinceTime(flags.since, io.now ?? Date.now) : undefined
  const { folder, config, recorded } = await traceFolder(dir, io)
  const options = { ...(flags.by ? { by: flags.by } : {}), ...(since !== undefined ? { since } : {}) }
  let report: UsageReport
  if (recorded) report = await usageReport(folder, { ...options, models: config.models })
  else {
    // The default folder before anything was recorded: an empty report that says how to fill it.
    const message = `No traces in ${folder} yet: ${howToRecord(folder)}.`
    if (!flags.json && flags.html === undefined) {
      io.stdout(`${message}\n`)
      return 0
    }
    report = emptyUsageReport(folder, options)
    report.diagnostics.push(diagnostic("info", "no-traces", message, { path: folder }))
  }
  printDiagnostics(io, report.diagnostics)
  if (flags.html !== undefined) {
    try {
      await writeFileAtomic(resolve(io.cwd, flags.html), renderUsageHtml(report))
    } catch (error) {
      throw new FileError("html-unwritable", flags.html, `cannot write the HTML report (${(error as Error).message})`, {
        cause: error,
      })
    }
    io.stdout(`HTML report written to ${flags.html}\n`)
  } else if (flags.json) printJson(io, report)
  else io.stdout(renderUsageText(report))
  return 0
}
