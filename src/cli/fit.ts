import { isAbsolute, resolve } from "node:path"
import { Command, Option } from "commander"
import { PromptlineError } from "../errors.js"
import type { Edit } from "../history/edits.js"
import type { Message } from "../history/message.js"
import type { TruncationStrategy } from "../history/truncate.js"
import type { CommandFactory } from "./main.js"
import { printDiagnostics, printJson } from "./print.js"

interface FitFlags {
  history: string
  model: string
  json?: boolean
  strategy: TruncationStrategy
  reserve?: string
  changeLog?: string
  save?: boolean
  now?: string
  verbose?: boolean
}

function describeEdit(e: Edit): string {
  switch (e.kind) {
    case "truncation":
      return `truncation: hid ${e.from} … ${e.to}`
    case "compaction":
      return `compaction: condensed ${e.from} … ${e.to}`
    case "notice":
    case "reinject":
      return `${e.kind}: added text to ${e.messageId}`
    default:
      return `${e.kind}: replaced block ${e.block} of ${e.messageId}${e.subject ? ` (${e.subject})` : ""}`
  }
}

function preview(m: Message): string {
  const parts = m.content.map((b) =>
    b.type === "text"
      ? b.text
      : b.type === "tool_use"
        ? `[${b.name}]`
        : b.type === "tool_result"
          ? "[result]"
          : `[${b.type}]`,
  )
  const line = parts.join(" ").replace(/\s+/g, " ").trim()
  return line.length > 72 ? `${line.slice(0, 71)}…` : line
}

/**
 * `promptline fit --history FILE --model ID`: shows what would be sent for the history and why: tokens
 * before and after, the budget, and each edit (dedup, truncation, notices). With `--change-log FILE` it
 * continues a recorded change log, and with `--save` writes the new edits back to it.
 */
export const fitCommand: CommandFactory = (io) =>
  new Command("fit")
    .description("fit a conversation history into a model's context window and show what would be sent")
    .requiredOption("--history <file>", "the history: a JSON array of messages")
    .requiredOption("--model <id>", "the model id (resolved against the catalog)")
    .option("--json", "print the result as JSON")
    .addOption(
      new Option("--strategy <strategy>", "truncation strategy")
        .choices(["auto", "half", "quarter", "lastTwo", "none"])
        .default("auto"),
    )
    .option("--reserve <tokens>", "tokens (or a fraction of the window below 1) held back from the window")
    .option("--change-log <file>", "a change log to continue")
    .option("--save", "write the new edits to the change log")
    .option("--now <ms>", "timestamp of the edits (default: the last message's timestamp + 1)")
    .option("--verbose", "also print info diagnostics")
    .action(async (flags: FitFlags) => {
      const at = (p: string) => (isAbsolute(p) ? p : resolve(io.cwd, p))
      const reserve = flags.reserve === undefined ? undefined : Number(flags.reserve)
      if (reserve !== undefined && !(reserve >= 0))
        throw new PromptlineError(
          "invalid-option",
          `--reserve must be a number of 0 or more (got ${JSON.stringify(flags.reserve)})`,
        )
      if (flags.now !== undefined && !Number.isFinite(Number(flags.now)))
        throw new PromptlineError("invalid-option", `--now must be a number (got ${JSON.stringify(flags.now)})`)
      const [{ readHistory }, { ChangeLog }, { ContextManager }] = await Promise.all([
        import("../history/history-file.js"),
        import("../history/change-log.js"),
        import("../history/context-manager.js"),
      ])
      const history = await readHistory(at(flags.history))
      const now = flags.now === undefined ? (history.at(-1)?.ts ?? 0) + 1 : Number(flags.now)
      const changeLog = flags.changeLog ? await ChangeLog.load(at(flags.changeLog), history) : new ChangeLog()
      const manager = await ContextManager.create({ changeLog, strategy: flags.strategy, reserve })
      const result = manager.fit(history, { model: flags.model, now })
      if (flags.save && flags.changeLog) await changeLog.save(at(flags.changeLog))
      const { budget } = result.tokens
      if (flags.json) {
        printJson(io, {
          model: {
            id: result.model.id,
            canonicalId: result.model.canonicalId,
            contextWindow: result.model.contextWindow,
          },
          tokens: result.tokens,
          edits: result.edits,
          diagnostics: result.diagnostics,
          messages: result.messages,
        })
        return
      }
      const lines = [
        `model      ${result.model.id}${result.model.canonicalId ? ` (${result.model.canonicalId})` : ""}, window ${budget.window.toLocaleString("en-US")}, budget ${budget.effective.toLocaleString("en-US")}`,
        `tokens     ${result.tokens.before.toLocaleString("en-US")} before, ${result.tokens.after.toLocaleString("en-US")} after (${result.model.tokenizer}${result.model.tokenizer === "o200k" || result.model.tokenizer === "cl100k" ? ", exact" : ", estimated"})`,
        `messages   ${history.length} in the history, ${result.messages.length} sent`,
        `edits      ${result.edits.length === 0 ? "none" : ""}`,
        ...result.edits.map((e) => `  ${describeEdit(e)}`),
        "sent:",
        ...result.messages.map((m) => `  ${m.id.padEnd(8)} ${m.role.padEnd(9)} ${preview(m)}`),
      ]
      io.stdout(`${lines.join("\n")}\n`)
      printDiagnostics(io, result.diagnostics, flags.verbose)
    })
