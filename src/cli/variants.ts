import { Command } from "commander"
import { type ContextFlags, contextOptions } from "./context-options.js"
import type { CommandFactory } from "./main.js"
import { printDiagnostics, printJson } from "./print.js"

/** `promptline variants`: lists the variants and explains which one a model gets and why. */
export const variantsCommand: CommandFactory = (io) => {
  const command = new Command("variants").description("list the prompt variants and explain the choice for a model")
  for (const option of contextOptions()) command.addOption(option)
  command.option("--json", "print as JSON").action(async (flags: ContextFlags & { json?: boolean }) => {
    const [{ contextFrom }, { PromptBuilder }, { orderVariants }, { BUILTIN_VARIANTS }] = await Promise.all([
      import("./context-source.js"),
      import("../prompt/builder.js"),
      import("../prompt/registry.js"),
      import("../prompt/variants/index.js"),
    ])
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
