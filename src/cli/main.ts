import { createRequire } from "node:module"
import { Command, CommanderError } from "commander"
import { PromptlineError } from "../errors.js"
import { compactCommand } from "./compact.js"
import { contextCommand } from "./context.js"
import { decodeCommand } from "./decode.js"
import { diffCommand } from "./diff.js"
import { doctorCommand } from "./doctor.js"
import { fitCommand } from "./fit.js"
import { inspectCommand } from "./inspect.js"
import { type CliIO, processIO } from "./io.js"
import { launchCommand } from "./launch.js"
import { promptCommand } from "./prompt.js"
import { requestCommand } from "./request.js"
import { runCommand } from "./run.js"
import { serveCommand } from "./serve.js"
import { tracesCommand } from "./traces.js"
import { usageCommand } from "./usage.js"
import { variantsCommand } from "./variants.js"

/** A command module: adds one subcommand to the program. Actions return the exit code. */
export type CommandFactory = (io: CliIO, setExit: (code: number) => void) => Command

/** The subcommands, in help order. Each lives in its own file in this folder. */
const commands: CommandFactory[] = [
  promptCommand,
  contextCommand,
  variantsCommand,
  runCommand,
  doctorCommand,
  inspectCommand,
  tracesCommand,
  usageCommand,
  diffCommand,
  requestCommand,
  decodeCommand,
  fitCommand,
  compactCommand,
  serveCommand,
  launchCommand,
]

/** The package's version, read from its package.json (two folders up from src/cli and from dist/cli). */
export function packageVersion(): string {
  return (createRequire(import.meta.url)("../../package.json") as { version: string }).version
}

/** Runs the promptline CLI with `argv` (without node and script); returns the exit code. */
export async function main(argv: string[], io: CliIO = processIO()): Promise<number> {
  let exitCode = 0
  const setExit = (code: number) => {
    exitCode = code
  }
  const program = new Command("promptline")
    .description("The context engine for coding agents.")
    .version(packageVersion(), "-V, --version", "print the version")
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .showHelpAfterError(false)
    // A subcommand's options come after its name (`launch` hands everything after the agent's name to the agent).
    .enablePositionalOptions()
  for (const factory of commands) {
    program.addCommand(
      factory(io, setExit).exitOverride().configureOutput({ writeOut: io.stdout, writeErr: io.stderr }),
    )
  }
  try {
    await program.parseAsync(argv, { from: "user" })
    return exitCode
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode
    if (error instanceof PromptlineError) {
      io.stderr(`promptline: ${error.message}\n`)
      return 1
    }
    io.stderr(`promptline: unexpected error: ${(error as Error)?.stack ?? String(error)}\n`)
    return 2
  }
}
