import { Command, Option } from "commander"
import { type ContextFlags, contextOptions } from "./context-options.js"
import type { CommandFactory } from "./main.js"

/** Flags of `promptline diff`. */
export interface DiffFlags extends Omit<ContextFlags, "model" | "context"> {
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
      const { diffAction } = await import("./diff-action.js")
      setExit(await diffAction(flags, io))
    })
  return command
}
