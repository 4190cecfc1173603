/**
 * The replay server's provider-side compaction (opt in with `compaction: "simulate"`): a turn request that asks
 * for server-side compaction (Anthropic `context_management.edits` with `compact_20260112`, OpenAI Responses
 * `context_management: [{ type: "compaction", compact_threshold }]`) and whose input reaches the trigger is answered
 * with a compaction item first, as the provider would answer it. The input is counted by the cache explainer's
 * layout code, the same count the cache simulation bills. The summary is made, not written by a model: the first
 * user text of the request verbatim, a line naming what was condensed, and a fixed-size body (see docs/decisions.md).
 */
import { cacheLayout, type TokenMemo } from "../cache/cache-layout.js"
import type { TokenCounter } from "../history/tokens.js"
import { resolveModel } from "../models/resolve.js"
import type { ReplayFormat } from "./view.js"

/** Anthropic's trigger when the compaction edit names none. */
export const ANTHROPIC_DEFAULT_COMPACTION_TRIGGER = 150_000

/** Characters of the fixed body of each simulated summary (about 300 tokens). */
export const SIMULATED_SUMMARY_BODY_CHARS = 1_200

const BODY_LINE = "Earlier work as the provider condensed it: progress, decisions, files and open items (simulated).\n"

/** The compaction item an answer opens with. */
export interface SimulatedCompaction {
  payload: string
  summary?: string
}

type Json = Record<string, unknown>
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v)

/** The input tokens at which the request asks the provider to compact, or undefined when it does not ask. */
export function compactionTrigger(format: ReplayFormat, body: Json): number | undefined {
  const cm = body.context_management
  if (format === "anthropic") {
    const edits = isObject(cm) && Array.isArray(cm.edits) ? cm.edits : []
    const edit = edits.find((e) => isObject(e) && e.type === "compact_20260112") as Json | undefined
    if (!edit) return undefined
    const value = isObject(edit.trigger) ? edit.trigger.value : undefined
    return typeof value === "number" ? value : ANTHROPIC_DEFAULT_COMPACTION_TRIGGER
  }
  if (format === "openai-responses" && Array.isArray(cm)) {
    const entry = cm.find((e) => isObject(e) && e.type === "compaction") as Json | undefined
    // Without a threshold the replay cannot tell when the provider would compact: it does not.
    return typeof entry?.compact_threshold === "number" ? entry.compact_threshold : undefined
  }
  return undefined
}

/** The messages of a request body (Anthropic `messages`, Responses `input`). */
function messagesOf(format: ReplayFormat, body: Json): unknown[] {
  const list = format === "anthropic" ? body.messages : body.input
  return Array.isArray(list) ? list : []
}

/** The text of the first user message, as sent. */
function firstUserText(format: ReplayFormat, body: Json): string {
  const first = messagesOf(format, body).find(
    (m) => isObject(m) && m.role === "user" && (m.type ?? "message") === "message",
  )
  const content = isObject(first) ? first.content : undefined
  if (typeof content === "string") return content
  if (!Array.isArray(content)) return ""
  return content
    .filter((p): p is Json => isObject(p) && typeof p.text === "string")
    .map((p) => p.text as string)
    .join("\n")
}

/** The body of every simulated summary: the same fixed number of characters. */
function summaryBody(): string {
  return BODY_LINE.repeat(Math.ceil(SIMULATED_SUMMARY_BODY_CHARS / BODY_LINE.length)).slice(
    0,
    SIMULATED_SUMMARY_BODY_CHARS,
  )
}

/** Options of a compaction simulation. */
export interface CompactionSimulationOptions {
  counter: TokenCounter
}

/** Decides, per turn request, whether the provider would compact, and makes the item it would answer with. */
export class CompactionSimulation {
  private readonly memo: TokenMemo = new Map()
  /** Compaction items answered so far. */
  compactions = 0

  constructor(private readonly options: CompactionSimulationOptions) {}

  /** The request's input tokens, as the cache simulation counts them. */
  inputTokens(format: ReplayFormat, body: Json, model?: string): number {
    const id = typeof body.model === "string" ? body.model : (model ?? "unknown")
    const info = resolveModel(id, {}).model
    return cacheLayout(format, body, info, this.options.counter, this.memo).total
  }

  /** The compaction item the answer opens with, or undefined when the request did not ask or is under its trigger. */
  compact(format: ReplayFormat, body: Json, model?: string): SimulatedCompaction | undefined {
    const trigger = compactionTrigger(format, body)
    if (trigger === undefined) return undefined
    const tokens = this.inputTokens(format, body, model)
    if (tokens < trigger) return undefined
    const n = this.compactions++
    const replaced = messagesOf(format, body).length
    const summary = [
      `The original task, verbatim:\n${firstUserText(format, body)}`,
      `The provider condensed ${replaced} messages (${tokens} input tokens) here.`,
      summaryBody(),
    ].join("\n\n")
    // Responses items carry no readable summary: the opaque payload stands for it, at the same size.
    return format === "anthropic" ? { payload: `replay-compaction-${n}`, summary } : { payload: summary }
  }
}
