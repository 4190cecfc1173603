import { Command, Option } from "commander"
import { PromptlineError } from "../errors.js"
import type { Message } from "../history/message.js"
import type { WireFormat } from "../models/types.js"
import { wireFormats } from "../providers/descriptors.js"
import type { EncodeOptions, ReasoningEffort } from "../providers/encode.js"
import type { ConversationFormat } from "../providers/request-detect.js"
import { type ContextFlags, contextOptions } from "./context-options.js"
import { fromOption, HISTORY_HELP, readHistoryFlag } from "./conversation-option.js"
import type { CommandFactory } from "./main.js"
import { printDiagnostics, printJson } from "./print.js"

interface RequestFlags extends ContextFlags {
  format?: WireFormat
  history?: string
  from?: ConversationFormat
  maxTokens?: string
  temperature?: string
  thinking?: ReasoningEffort | "off"
  thinkingBudget?: string
  cache: boolean
  cacheTtl?: "5m" | "1h"
  sessionId?: string
  stream: boolean
  json?: boolean
  verbose?: boolean
}

const EFFORTS: ReasoningEffort[] = ["minimal", "low", "medium", "high", "xhigh", "max"]

/**
 * `promptline request --format F --model ID [--history FILE] [--context FILE]`: prints the exact request
 * body that would be sent, built from the workspace (or a context file) and a stored history.
 */
export const requestCommand: CommandFactory = (io, setExit) => {
  const command = new Command("request").description("print the exact request body for a wire format")
  command.addOption(
    new Option("--format <format>", "wire format (default: the model's own)").choices([...wireFormats()]),
  )
  for (const option of contextOptions()) command.addOption(option)
  command
    .option("--history <file>", `the conversation so far: ${HISTORY_HELP}`)
    .addOption(fromOption())
    .option("--max-tokens <n>", "output token limit (default: the model's maximum)")
    .option("--temperature <t>", "sampling temperature")
    .addOption(new Option("--thinking <effort>", "thinking effort, or off").choices([...EFFORTS, "off"]))
    .option("--thinking-budget <n>", "thinking budget in tokens")
    .addOption(new Option("--cache-ttl <ttl>", "Anthropic cache lifetime").choices(["5m", "1h"]))
    .option("--no-cache", "no cache breakpoints")
    .option("--session-id <id>", "session id, sent to OpenAI as prompt_cache_key")
    .option("--no-stream", "ask for a whole answer instead of a stream")
    .option("--json", "print the body with its diagnostics and cache breakpoints")
    .option("--verbose", "also print informational diagnostics")
    .action(async (flags: RequestFlags) => {
      const [{ contextFrom }, { PromptBuilder }, { encodeRequest }] = await Promise.all([
        import("./context-source.js"),
        import("../prompt/builder.js"),
        import("../providers/encode.js"),
      ])
      const { context, diagnostics, config } = await contextFrom(flags, io)
      const built = new PromptBuilder({ models: config.models }).build(context)
      const messages: Message[] = flags.history ? (await readHistoryFlag(io, flags.history, flags.from)).messages : []
      const format = flags.format ?? built.wireFormat
      const result = encodeRequest(format, { prompt: built, messages, model: built.model, options: options(flags) })
      const all = [...diagnostics, ...built.diagnostics, ...result.diagnostics]
      if (flags.json) printJson(io, { format, ...result, diagnostics: all })
      else {
        printJson(io, result.body)
        printDiagnostics(io, all, flags.verbose)
      }
      setExit(all.some((d) => d.level === "error") ? 1 : 0)
    })
  return command
}

function number(
  flag: string,
  value: string | undefined,
  what: string,
  test: (n: number) => boolean,
): number | undefined {
  if (value === undefined) return undefined
  const n = Number(value)
  if (!test(n)) throw new PromptlineError("invalid-option", `${flag} must be ${what} (got ${JSON.stringify(value)})`)
  return n
}

function options(flags: RequestFlags): EncodeOptions {
  const out: EncodeOptions = { stream: flags.stream }
  const maxTokens = number("--max-tokens", flags.maxTokens, "a positive integer", (n) => Number.isInteger(n) && n > 0)
  if (maxTokens !== undefined) out.maxTokens = maxTokens
  const temperature = number("--temperature", flags.temperature, "a number from 0 to 2", (n) => n >= 0 && n <= 2)
  if (temperature !== undefined) out.temperature = temperature
  const budget = number(
    "--thinking-budget",
    flags.thinkingBudget,
    "an integer of 0 or more",
    (n) => Number.isInteger(n) && n >= 0,
  )
  if (flags.thinking === "off") out.thinking = false
  else if (flags.thinking || budget !== undefined)
    out.thinking = {
      ...(flags.thinking ? { effort: flags.thinking } : {}),
      ...(budget !== undefined ? { budgetTokens: budget } : {}),
    }
  if (!flags.cache) out.cache = false
  else if (flags.cacheTtl || flags.sessionId)
    out.cache = {
      ...(flags.cacheTtl ? { ttl: flags.cacheTtl } : {}),
      ...(flags.sessionId ? { sessionId: flags.sessionId } : {}),
    }
  return out
}
