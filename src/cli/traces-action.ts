// The action of `promptline traces`, loaded only when the command runs (see traces.ts for its flags).

import { describeCause } from "../cache/header.js"
import { defaultTraceDir } from "../cache/trace-dir.js"
import { summarizeTraces } from "../cache/trace-read.js"
import { loadConfig } from "../config/config.js"
import { num, pct } from "../inspect/text.js"
import { homeOf } from "./context-options.js"
import type { CliIO } from "./io.js"
import { printJson } from "./print.js"
import type { TracesFlags } from "./traces.js"

const dollars = (n: number) => `$${n.toFixed(4)}`

/** Prints the conversations of a trace folder; returns the exit code. */
export async function tracesAction(dir: string | undefined, flags: TracesFlags, io: CliIO): Promise<number> {
  const { config } = await loadConfig({ cwd: io.cwd, home: homeOf(io), env: io.env })
  const folder = dir ?? config.traces?.dir ?? defaultTraceDir(homeOf(io), io.env)
  const summaries = await summarizeTraces(folder, config.models)
  if (flags.json) {
    printJson(io, { dir: folder, conversations: summaries })
    return 0
  }
  const out: string[] = [`${summaries.length} conversation${summaries.length === 1 ? "" : "s"} in ${folder}`]
  for (const s of summaries) {
    out.push(
      "",
      `${s.key}  ${s.requests} request${s.requests === 1 ? "" : "s"}  ${s.clientApi} → ${s.upstream}  ${s.model}`,
      `  ${num(s.tokens.total)} prompt tokens, ${pct(s.cachedShare)} cached, ${num(s.tokens.write)} written; cost ${dollars(s.cost)}` +
        (s.misses.length > 0 ? `, misses added ${dollars(s.missCost)}` : ""),
      `  trace: ${s.file}`,
    )
    if (s.misses.length === 0) out.push("  no cache misses")
    for (const m of s.misses)
      out.push(`  miss at #${m.n}: ${describeCause(m.cause)} (${num(m.missedTokens)} tokens, +${dollars(m.addedCost)})`)
  }
  io.stdout(`${out.join("\n")}\n`)
  return 0
}
