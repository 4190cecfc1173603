import { Command } from "commander"
import { type ContextFlags, contextOptions } from "./context-options.js"
import type { CommandFactory } from "./main.js"
import { printDiagnostics, printJson } from "./print.js"

/** `promptline context --json`: prints the context a build would use, ready to edit and pass back. */
export const contextCommand: CommandFactory = (io) => {
  const command = new Command("context").description(
    "print the context a build would use (edit it, pass it back with --context)",
  )
  for (const option of contextOptions()) command.addOption(option)
  command
    .option("--json", "print as JSON (the only format; accepted for clarity)")
    .action(async (flags: ContextFlags) => {
      const { contextFrom } = await import("./context-source.js")
      const { context, diagnostics } = await contextFrom(flags, io)
      printJson(io, context)
      printDiagnostics(io, diagnostics)
    })
  return command
}
