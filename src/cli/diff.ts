import { Command, Option } from "commander"
import type { PromptContext } from "../context/prompt-context.js"
import type { Diagnostic } from "../diagnostics.js"
import { PromptlineError } from "../errors.js"
import { TokenCounter } from "../history/tokens.js"
import { diffBuilds } from "../inspect/build-diff.js"
import { renderDiff } from "../inspect/render-diff.js"
import { inspectReport } from "../inspect/report.js"
import { withModel } from "../inspect/with-model.js"
import { PromptBuilder } from "../prompt/builder.js"
import { type ContextFlags, contextFrom, contextOptions } from "./context-source.js"
import { useColor } from "./inspect.js"
import type { CommandFactory } from "./main.js"
import { printDiagnostics, printJson } from "./print.js"

interface DiffFlags extends Omit<ContextFlags, "model" | "context"> {
  model: string[]
  context: string[]
  json?: boolean
  color?: boolean
  unchanged?: boolean
}

const collect = (value: string, previous: string[] = []): string[] => [...previous, value]

/** `promptline diff`: the differences between two builds, section by section and tool by tool, with token deltas. */
export const diffCommand: CommandFactory = (io, setExit) => {
  const command = new Command("diff").description(
    "compare two builds (two models, or two context files): sections and tools with token deltas",
  )
  command
    .addOption(
      new Option("--model <id>", "a model to build for; give two to compare models").argParser(collect).default([]),
    )
    .addOption(
      new Option("--context <file>", "a context file; give two to compare contexts").argParser(collect).default([]),
    )
  for (const option of contextOptions())
    if (option.long !== "--model" && option.long !== "--context") command.addOption(option)
  command
    .option("--json", "print the diff as JSON")
    .option("--unchanged", "also list the unchanged tools by name")
    .option("--color", "color the diff (default: when stdout is a terminal)")
    .option("--no-color", "never color")
    .action(async (flags: DiffFlags) => {
      const { model: models, context: files } = flags
      const base = { ...flags, model: undefined, context: undefined } as ContextFlags
      const sides: { label: string; context: PromptContext }[] = []
      const diagnostics: Diagnostic[] = []
      if (files.length === 2 && models.length <= 1) {
        for (const file of files) {
          const got = await contextFrom({ ...base, context: file, ...(models[0] ? { model: models[0] } : {}) }, io)
          diagnostics.push(...got.diagnostics)
          sides.push({ label: file, context: got.context })
        }
      } else if (models.length === 2 && files.length <= 1) {
        const got = await contextFrom({ ...base, model: models[0]!, ...(files[0] ? { context: files[0] } : {}) }, io)
        diagnostics.push(...got.diagnostics)
        sides.push({ label: models[0]!, context: got.context })
        sides.push({ label: models[1]!, context: withModel(got.context, models[1]!, flags.provider) })
      } else {
        throw new PromptlineError(
          "diff-needs-two",
          "diff compares two builds: give --model A --model B, or --context FILE --context FILE",
        )
      }
      const counter = await TokenCounter.create()
      const builder = new PromptBuilder()
      const [a, b] = sides.map((s) => inspectReport({ built: builder.build(s.context), context: s.context, counter }))
      const diff = diffBuilds(a!, b!, [sides[0]!.label, sides[1]!.label])
      const all = [...diagnostics, ...a!.diagnostics, ...b!.diagnostics]
      if (flags.json) printJson(io, diff)
      else {
        io.stdout(renderDiff(diff, { color: useColor(io, flags.color), unchangedTools: flags.unchanged === true }))
        printDiagnostics(io, all)
      }
      setExit(all.some((d) => d.level === "error") ? 1 : 0)
    })
  return command
}
