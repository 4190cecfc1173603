import { Command } from "commander"
import type { CommandFactory } from "./main.js"

/** Flags of `promptline serve`. */
export interface ServeFlags {
  port?: string
  host?: string
  config?: string
  json?: boolean
  trace?: string
}

/**
 * `promptline serve`: the gateway. Agents that speak the Anthropic, OpenAI or Gemini API point their base URL
 * at it; it routes each request to an upstream (unchanged, or translated) and logs one line per request.
 */
export const serveCommand: CommandFactory = (io, setExit) =>
  new Command("serve")
    .description("run the gateway: any agent's provider API in, any provider out (Anthropic, OpenAI, Gemini)")
    .option("--port <n>", "port to listen on (default: the config's, else 8788; 0 picks a free one)")
    .option("--host <h>", "interface to listen on (default 127.0.0.1; another one needs gateway.tokenEnv)")
    .option("--config <file>", "the config file to read (default: promptline.config.json of the user and the project)")
    .option("--json", "print JSON lines: the listening event, then one per request")
    .option(
      "--trace <dir>",
      "record each request with its cache verdict in this folder (default: the config's traces.dir, if set)",
    )
    .action(async (flags: ServeFlags) => {
      const { serveAction } = await import("./serve-action.js")
      setExit(await serveAction(flags, io))
    })
