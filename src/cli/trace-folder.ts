/**
 * The trace folder a trace command reads (`traces`, `usage`): the one named on the command line, else the config's
 * `traces.dir`, else the user cache's; and what to say when it holds no traces yet.
 */
import { stat } from "node:fs/promises"
import { join } from "node:path"
import { defaultTraceDir } from "../cache/trace-dir.js"
import { loadConfig, type PromptlineConfig } from "../config/config.js"
import { FileError } from "../errors.js"
import { homeOf } from "./context-options.js"
import type { CliIO } from "./io.js"

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
export function howToRecord(folder: string): string {
  const at = /^[\w./~-]+$/.test(folder) ? folder : JSON.stringify(folder)
  return `record requests with  promptline run --trace ${at} "a task"  or  promptline serve --trace ${at}  (serve also records into the traces.dir of your own promptline.config.json)`
}

/** The trace folder to read, the config it came from, and whether it holds traces yet. */
export interface TraceFolder {
  folder: string
  config: PromptlineConfig
  /** False for the default folder (or the config's) before anything was recorded there. */
  recorded: boolean
}

/**
 * The trace folder of a command. A folder named on the command line that holds no traces is a mistake (a
 * FileError saying how to record some); the default one is only empty yet (`recorded: false`).
 */
export async function traceFolder(dir: string | undefined, io: CliIO): Promise<TraceFolder> {
  const { config } = await loadConfig({ cwd: io.cwd, home: homeOf(io), env: io.env })
  const folder = dir ?? config.traces?.dir ?? defaultTraceDir(homeOf(io), io.env)
  const state = await folderState(folder)
  if (state === "not-a-folder") throw new FileError("file-unreadable", folder, "not a folder: give a trace folder")
  if (dir !== undefined && state !== "traces") {
    const what = state === "missing" ? "no such folder" : "not a trace folder (it has no conversations/ folder)"
    throw new FileError("file-unreadable", folder, `${what}; ${howToRecord(folder)}`)
  }
  return { folder, config, recorded: state === "traces" }
}
