import { Command, Option } from "commander"
import type { ConversationFormat } from "../providers/request-detect.js"
import { fromOption, HISTORY_HELP } from "./conversation-option.js"
import type { CommandFactory } from "./main.js"

/** Flags of `promptline compact`. */
export interface CompactFlags {
  history: string
  from?: ConversationFormat
  model: string
  json?: boolean
  threshold?: string
  keepTurns?: string
  keepTail?: string
  reserve?: string
}

/**
 * `promptline compact --history FILE --model ID`: shows what each stage of staged compaction would do
 * to the history (masking old tool results, then a structured summary) without calling a model.
 */
export const compactCommand: CommandFactory = (io, setExit) =>
  new Command("compact")
    .description("show what staged compaction would do to a history: mask old tool results, then summarize")
    .requiredOption("--history <file>", HISTORY_HELP)
    .addOption(fromOption())
    .requiredOption("--model <id>", "the model id (resolved against the catalog)")
    .addOption(
      new Option("--threshold <fraction>", "compaction starts above this share of the budget").default("0.5", "0.5"),
    )
    .addOption(
      new Option("--keep-turns <n>", "tool results of this many recent turns are never masked").default("3", "3"),
    )
    .addOption(new Option("--keep-tail <n>", "messages kept verbatim after a summary").default("6", "6"))
    .option("--reserve <tokens>", "tokens (or a fraction of the window below 1) held back from the window")
    .option("--json", "print the result as JSON")
    .action(async (flags: CompactFlags) => {
      const { compactAction } = await import("./compact-action.js")
      setExit(await compactAction(flags, io))
    })
