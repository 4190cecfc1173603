import { Command } from "commander"
import { PromptlineError } from "../errors.js"
import { type ContextFlags, contextOptions } from "./context-options.js"
import type { CommandFactory } from "./main.js"
import { printDiagnostics, printJson } from "./print.js"

interface PromptFlags extends ContextFlags {
  section?: string
  json?: boolean
}

/** `promptline prompt`: prints the system prompt (and the context message) for a workspace or a context file. */
export const promptCommand: CommandFactory = (io, setExit) => {
  const command = new Command("prompt").description("print the system prompt for the workspace or a context file")
  for (const option of contextOptions()) command.addOption(option)
  command
    .option("--section <id>", "print only this section")
    .option("--json", "print the whole build result as JSON, native tool definitions included")
    .action(async (flags: PromptFlags) => {
      const [{ contextFrom }, { PromptBuilder }] = await Promise.all([
        import("./context-source.js"),
        import("../prompt/builder.js"),
      ])
      const { context, diagnostics, config } = await contextFrom(flags, io)
      const built = new PromptBuilder({ models: config.models }).build(context)
      const all = [...diagnostics, ...built.diagnostics]
      if (flags.section) {
        const section = built.sections.find((s) => s.id === flags.section)
        if (!section) {
          const ids = built.sections.map((s) => s.id).join(", ")
          throw new PromptlineError("unknown-section", `no section "${flags.section}" in this build (sections: ${ids})`)
        }
        io.stdout(`${section.text}\n`)
      } else if (flags.json) {
        printJson(io, { ...built, diagnostics: all })
      } else {
        io.stdout(`${built.text}\n`)
        if (built.contextMessage) io.stdout(`\n--- context message (first user turn) ---\n${built.contextMessage}\n`)
      }
      if (!flags.json) printDiagnostics(io, all)
      setExit(all.some((d) => d.level === "error") ? 1 : 0)
    })
  return command
}
