import { Command } from "commander"
import { PromptBuilder } from "../prompt/builder.js"
import { orderVariants } from "../prompt/registry.js"
import { BUILTIN_VARIANTS } from "../prompt/variants/index.js"
import { type ContextFlags, contextFrom, contextOptions } from "./context-source.js"
import type { CommandFactory } from "./main.js"
import { printDiagnostics, printJson } from "./print.js"

/** `promptline variants`: lists the variants and explains which one a model gets and why. */
export const variantsCommand: CommandFactory = (io) => {
  const command = new Command("variants").description("list the prompt variants and explain the choice for a model")
  for (const option of contextOptions()) command.addOption(option)
  command.option("--json", "print as JSON").action(async (flags: ContextFlags & { json?: boolean }) => {
    const { context, diagnostics, config } = await contextFrom({ mcp: false, ...flags }, io)
    const explanation = new PromptBuilder({ models: config.models }).explain(context)
    if (flags.json) {
      printJson(io, {
        model: explanation.model,
        variant: explanation.variant.id,
        reason: explanation.reason,
        toolCalling: explanation.toolCalling,
        considered: explanation.considered,
        diagnostics: [...diagnostics, ...explanation.diagnostics],
      })
      return
    }
    const lines = ["Variants, in the order they are tried:"]
    for (const v of orderVariants(BUILTIN_VARIANTS)) {
      const c = explanation.considered.find((x) => x.id === v.id)
      const mark = v.id === explanation.variant.id ? "*" : " "
      lines.push(`${mark} ${v.id.padEnd(9)} priority ${String(v.priority).padStart(3)}  ${v.description}`)
      if (c) lines.push(`             ${c.matched ? "matched" : "no match"}: ${c.reason}`)
    }
    lines.push(
      "",
      `Model ${explanation.model.id} (${explanation.model.provider}, family ${explanation.model.family}) gets "${explanation.variant.id}": ${explanation.reason}.`,
      `Tool calling: ${explanation.toolCalling}.`,
    )
    io.stdout(`${lines.join("\n")}\n`)
    printDiagnostics(io, [...diagnostics, ...explanation.diagnostics])
  })
  return command
}
