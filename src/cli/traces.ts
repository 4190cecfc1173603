import { resolve } from "node:path"
import { Command } from "commander"
import type { CommandFactory } from "./main.js"

/** Flags of `promptline traces`. */
export interface TracesFlags {
  json?: boolean
}

/**
 * `promptline traces [DIR]`: the conversations of a trace folder (the config's `traces.dir`, else the user
 * cache's), each with its requests, tokens, cached share, cost, and its misses with their causes.
 */
export const tracesCommand: CommandFactory = (io, setExit) =>
  new Command("traces")
    .description("list traced conversations: requests, tokens, cached share, cost, and each cache miss with its cause")
    .argument("[dir]", "the trace folder (default: the config's traces.dir, else promptline's cache folder)")
    .option("--json", "print the summaries as JSON")
    .action(async (dir: string | undefined, flags: TracesFlags) => {
      const { tracesAction } = await import("./traces-action.js")
      setExit(await tracesAction(dir ? resolve(io.cwd, dir) : undefined, flags, io))
    })
