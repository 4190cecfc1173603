// The action of `promptline traces`, loaded only when the command runs (see traces.ts for its flags).

import { stat } from "node:fs/promises"
import { join } from "node:path"
import { describeCause } from "../cache/header.js"
import { defaultTraceDir } from "../cache/trace-dir.js"
import { summarizeTraces } from "../cache/trace-read.js"
import { loadConfig } from "../config/config.js"
import { FileError } from "../errors.js"
import { num, pct } from "../inspect/text.js"
import { homeOf } from "./context-options.js"
import type { CliIO } from "./io.js"
import { printJson } from "./print.js"
import type { TracesFlags } from "./traces.js"

const dollars = (n: number) => `$${n.toFixed(4)}`

/** What stands at a trace folder's place: nothing, something else, a folder without traces, or a trace folder. */
async function folderState(folder: string): Promise<"missing" | "not-a-folder" | "no-traces" | "traces"> {
  const kind = async (path: string) => {
    try {
      return (await stat(path)).isDirectory() ? "folder" : "file"
    } catch {
      return "missing"
    }
  }
  const here = await kind(folder)
  if (here !== "folder") return here === "missing" ? "missing" : "not-a-folder"
  return (await kind(join(folder, "conversations"))) === "folder" ? "traces" : "no-traces"
}

/** How a trace folder comes to be: the commands that record into it. */
function howToRecord(folder: string): string {
  const at = /^[\w./~-]+$/.test(folder) ? folder : JSON.stringify(folder)
  return `record requests with  promptline run --trace ${at} "a task"  or  promptline serve --trace ${at}  (serve also records into the traces.dir of your own promptline.config.json)`
}

/** Prints the conversations of a trace folder; returns the exit code. */
export async function tracesAction(dir: string | undefined, flags: TracesFlags, io: CliIO): Promise<number> {
  const { config } = await loadConfig({ cwd: io.cwd, home: homeOf(io), env: io.env })
  const folder = dir ?? config.traces?.dir ?? defaultTraceDir(homeOf(io), io.env)
  const state = await folderState(folder)
  if (state === "not-a-folder") throw new FileError("file-unreadable", folder, "not a folder: give a trace folder")
  // A folder named on the command line that holds no traces is a mistake; the default one is only empty yet.
  if (dir !== undefined && state !== "traces") {
    const what = state === "missing" ? "no such folder" : "not a trace folder (it has no conversations/ folder)"
    throw new FileError("file-unreadable", folder, `${what}; ${howToRecord(folder)}`)
  }
  if (state !== "traces") {
    if (flags.json) printJson(io, { dir: folder, conversations: [] })
    else io.stdout(`No traces in ${folder} yet: ${howToRecord(folder)}.\n`)
    return 0
  }
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
