// `promptline inspect --trace FILE [--request N]`: the inspect report of one traced request, from traffic alone.
import { resolve } from "node:path"
import { writeFileAtomic } from "../atomic-write.js"
import { bodyOf, readTraceFile } from "../cache/trace-read.js"
import { loadConfig } from "../config/config.js"
import { FileError, PromptlineError } from "../errors.js"
import { TokenCounter } from "../history/tokens.js"
import { renderTraceHtml } from "../inspect/render-trace-html.js"
import { renderTraceText } from "../inspect/render-trace-text.js"
import { traceCalibration } from "../inspect/trace-calibration.js"
import { traceReport } from "../inspect/trace-report.js"
import { homeOf } from "./context-options.js"
import { type InspectFlags, reportWidth, useColor } from "./inspect.js"
import type { CliIO } from "./io.js"
import { printJson } from "./print.js"

/** Builds and prints the report of a traced request; returns the exit code. */
export async function inspectTraceAction(flags: InspectFlags & { trace: string }, io: CliIO): Promise<number> {
  const file = resolve(io.cwd, flags.trace)
  const lines = await readTraceFile(file)
  if (lines.length === 0) throw new FileError("invalid-input", file, "the trace has no requests")
  const request = flags.request ?? lines.at(-1)!.n
  const line = lines.find((l) => l.n === request)
  if (!line)
    throw new PromptlineError(
      "invalid-option",
      `${file} has requests 1 to ${lines.length}; there is no request ${request}`,
    )
  const { config } = await loadConfig({ cwd: io.cwd, home: homeOf(io), env: io.env })
  const counter = await TokenCounter.create()
  const report = traceReport({ file, lines, request, body: await bodyOf(file, line), counter, models: config.models })
  const calibration = await traceCalibration({
    file,
    lines,
    request,
    bodyOf: (l) => bodyOf(file, l),
    counter,
    models: config.models,
  })
  if (calibration) report.calibration = calibration
  if (flags.html) {
    try {
      await writeFileAtomic(resolve(io.cwd, flags.html), renderTraceHtml(report))
    } catch (error) {
      throw new FileError("html-unwritable", flags.html, `cannot write the HTML report (${(error as Error).message})`, {
        cause: error,
      })
    }
    io.stdout(`HTML report written to ${flags.html}\n`)
  } else if (flags.json) printJson(io, report)
  else io.stdout(renderTraceText(report, { color: useColor(io, flags.color), width: reportWidth(io, flags.width) }))
  return 0
}
