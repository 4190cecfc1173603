import { isAbsolute, resolve } from "node:path"
import { Command, Option } from "commander"
import { PromptlineError } from "../errors.js"
import type { Edit } from "../history/edits.js"
import type { Message } from "../history/message.js"
import type { TruncationStrategy } from "../history/truncate.js"
import type { ConversationFormat } from "../providers/request-detect.js"
import { homeOf } from "./context-options.js"
import { fromOption, HISTORY_HELP, readHistoryFlag } from "./conversation-option.js"
import type { CommandFactory } from "./main.js"
import { printDiagnostics, printJson } from "./print.js"

interface FitFlags {
  history: string
  from?: ConversationFormat
  model: string
  json?: boolean
  strategy: TruncationStrategy
  reserve?: string
  changeLog?: string
  save?: boolean
  now?: string
  verbose?: boolean
  messages?: boolean
}

const n = (x: number) => x.toLocaleString("en-US")

/** One line per kind of edit: how many, and for hidden ranges how many messages they hid. */
export function summarizeEdits(edits: readonly Edit[], history: readonly Message[]): string[] {
  const position = new Map(history.map((m, i) => [m.id, i]))
  const order: Edit["kind"][] = ["dedup", "prune", "mask", "truncation", "compaction", "notice", "reinject"]
  const lines: string[] = []
  for (const kind of order) {
    const of = edits.filter((e) => e.kind === kind)
    if (of.length === 0) continue
    if (kind === "truncation" || kind === "compaction") {
      const hidden = of.reduce((sum, e) => {
        if (e.kind !== "truncation" && e.kind !== "compaction") return sum
        const from = position.get(e.from)
        const to = position.get(e.to)
        return from === undefined || to === undefined ? sum : sum + (to - from + 1)
      }, 0)
      const verb = kind === "truncation" ? "hid" : "condensed"
      lines.push(
        `${kind}: ${of.length} range${of.length === 1 ? "" : "s"}, ${verb} ${n(hidden)} message${hidden === 1 ? "" : "s"}`,
      )
    } else {
      const what =
        kind === "dedup" ? "repeated file read" : kind === "prune" || kind === "mask" ? "old tool output" : "added text"
      lines.push(`${kind}: ${of.length} ${what}${of.length === 1 ? "" : "s"}`)
    }
  }
  return lines
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
 * before and after, the budget, and the edits by kind (each edit and each message sent with `--messages`).
 * With `--change-log FILE` it continues a recorded change log, and with `--save` writes the new edits back
 * to it. Exits 1 when the result is still over the budget.
 */
export const fitCommand: CommandFactory = (io, setExit) =>
  new Command("fit")
    .description("fit a conversation history into a model's context window and show what would be sent")
    .requiredOption("--history <file>", HISTORY_HELP)
    .addOption(fromOption())
    .requiredOption("--model <id>", "the model id (resolved against the catalog)")
    .option("--json", "print the result as JSON")
    .addOption(
      new Option(
        "--strategy <strategy>",
        [
          "how to cut a history over the budget; the first exchange and the last message always stay",
          "auto: one cut, deep enough that the rest fills at most 30% of the budget, so the cached prefix rarely moves",
          "half: each cut removes about half of the messages in between, until the history fits",
          "quarter: each cut keeps about a quarter of them",
          "lastTwo: keeps the last two messages only",
          'none: keeps none of them, the most any strategy cuts (it does not mean "no truncation")',
        ].join("\n"),
      )
        .choices(["auto", "half", "quarter", "lastTwo", "none"])
        .default("auto", "auto"),
    )
    .option("--reserve <tokens>", "tokens (or a fraction of the window below 1) held back from the window")
    .option("--change-log <file>", "a change log to continue")
    .option("--save", "write the new edits to the change log")
    .option("--now <ms>", "timestamp of the edits (default: the last message's timestamp + 1)")
    .option("--messages", "also list each edit and each message sent")
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
      const [{ ChangeLog }, { ContextManager }] = await Promise.all([
        import("../history/change-log.js"),
        import("../history/context-manager.js"),
      ])
      const conversation = await readHistoryFlag(io, flags.history, flags.from)
      const history = conversation.messages
      const now = flags.now === undefined ? (history.at(-1)?.ts ?? 0) + 1 : Number(flags.now)
      const changeLog = flags.changeLog ? await ChangeLog.load(at(flags.changeLog), history) : new ChangeLog()
      const { loadConfig } = await import("../config/config.js")
      const { config } = await loadConfig({ cwd: io.cwd, home: homeOf(io), env: io.env })
      const manager = await ContextManager.create({
        changeLog,
        strategy: flags.strategy,
        reserve,
        models: config.models,
      })
      const result = manager.fit(history, {
        model: flags.model,
        now,
        ...(conversation.system === undefined ? {} : { system: conversation.system }),
        ...(conversation.tools === undefined ? {} : { tools: conversation.tools }),
      })
      result.diagnostics.unshift(...conversation.diagnostics)
      if (flags.save && flags.changeLog) await changeLog.save(at(flags.changeLog))
      const { budget } = result.tokens
      const over = result.tokens.after - budget.effective
      if (over > 0) setExit(1)
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
      const { before, after } = result.tokens
      const exact = result.model.tokenizer === "o200k" || result.model.tokenizer === "cl100k"
      const freed = before - after
      const summary = summarizeEdits(result.edits, history)
      const lines = [
        `model      ${result.model.id}${result.model.canonicalId ? ` (${result.model.canonicalId})` : ""}, window ${n(budget.window)}, budget ${n(budget.effective)}`,
        `tokens     ${n(before)} before, ${n(after)} after${freed > 0 ? ` (${n(freed)} freed)` : ""} (${result.model.tokenizer}${exact ? ", exact" : ", estimated"})`,
        over > 0
          ? `result     OVER the budget by ${n(over)} tokens: nothing more can be removed without breaking the history`
          : `result     fits, ${n(budget.effective - after)} tokens to spare`,
        `messages   ${history.length} in the history, ${result.messages.length} sent`,
        `edits      ${summary.length === 0 ? "none" : summary[0]}`,
        ...summary.slice(1).map((line) => `           ${line}`),
      ]
      if (flags.messages) {
        if (result.edits.length > 0) lines.push("each edit:", ...result.edits.map((e) => `  ${describeEdit(e)}`))
        lines.push("sent:", ...result.messages.map((m) => `  ${m.id.padEnd(8)} ${m.role.padEnd(9)} ${preview(m)}`))
      } else if (result.edits.length > 0 || result.messages.length > 0) {
        lines.push("(--messages lists each edit and each message sent)")
      }
      io.stdout(`${lines.join("\n")}\n`)
      printDiagnostics(io, result.diagnostics, flags.verbose)
    })
