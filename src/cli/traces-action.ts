// The action of `promptline traces`, loaded only when the command runs (see traces.ts for its flags).

import { describeCause } from "../cache/header.js"
import { summarizeTraces } from "../cache/trace-read.js"
import { costSumText, usd } from "../cache/usage-text.js"
import { type Diagnostic, formatDiagnostic } from "../diagnostics.js"
import { num, pct } from "../inspect/text.js"
import type { CliIO } from "./io.js"
import { printJson } from "./print.js"
import { howToRecord, traceFolder } from "./trace-folder.js"
import type { TracesFlags } from "./traces.js"

/** Prints the conversations of a trace folder; returns the exit code. */
export async function tracesAction(dir: string | undefined, flags: TracesFlags, io: CliIO): Promise<number> {
  const { folder, config, recorded } = await traceFolder(dir, io)
  if (!recorded) {
    if (flags.json) printJson(io, { dir: folder, conversations: [] })
    else io.stdout(`No traces in ${folder} yet: ${howToRecord(folder)}.\n`)
    return 0
  }
  const diagnostics: Diagnostic[] = []
  const summaries = await summarizeTraces(folder, config.models, (d) => diagnostics.push(d))
  for (const d of diagnostics) io.stderr(`${formatDiagnostic(d)}\n`)
  if (flags.json) {
    printJson(io, { dir: folder, conversations: summaries })
    return 0
  }
  const out: string[] = [`${summaries.length} conversation${summaries.length === 1 ? "" : "s"} in ${folder}`]
  for (const s of summaries) {
    const unreported = s.unreported > 0 ? ` (${num(s.unreported)} succeeded without reporting usage, not counted)` : ""
    out.push(
      "",
      `${s.key}  ${s.requests} request${s.requests === 1 ? "" : "s"}  ${s.clientApi} → ${s.upstream}  ${s.model}`,
      `  ${num(s.tokens.total)} prompt tokens, ${pct(s.cachedShare)} cached, ${num(s.tokens.write)} written; ${num(s.tokens.output)} output tokens`,
      `  cost ${costSumText(s.cost)}${unreported}${s.misses.length > 0 ? `; misses added ${usd(s.missCost)}` : ""}`,
      `  trace: ${s.file}`,
    )
    if (s.misses.length === 0) out.push("  no cache misses")
    for (const m of s.misses)
      out.push(`  miss at #${m.n}: ${describeCause(m.cause)} (${num(m.missedTokens)} tokens, +${usd(m.addedCost)})`)
  }
  io.stdout(`${out.join("\n")}\n`)
  return 0
}
