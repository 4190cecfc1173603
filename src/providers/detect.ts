/**
 * Which wire format a recorded response is in, read from the payloads themselves: every provider's stream
 * and body carries marks no other format has (event types, `object` names, field names).
 */
import type { WireFormat } from "../models/types.js"

/** A guess with the mark it rests on, for messages such as "looks like anthropic (message_start)". */
export interface FormatGuess {
  format: WireFormat
  /** The mark that decided it, in the recording's own words. */
  evidence: string
}

const RESPONSES_EVENT = /^response\./
const ANTHROPIC_EVENTS = new Set([
  "message_start",
  "message_delta",
  "message_stop",
  "content_block_start",
  "content_block_delta",
  "content_block_stop",
  "ping",
])

/** The format of one parsed payload or body, or undefined when it carries no mark. */
export function formatOfPayload(value: unknown): FormatGuess | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined
  const v = value as Record<string, unknown>
  const type = typeof v.type === "string" ? v.type : undefined
  if (type && RESPONSES_EVENT.test(type)) return { format: "openai-responses", evidence: `a "${type}" event` }
  if (v.object === "response") return { format: "openai-responses", evidence: 'object "response"' }
  if (type && ANTHROPIC_EVENTS.has(type)) return { format: "anthropic", evidence: `a "${type}" event` }
  if (type === "message" && Array.isArray(v.content) && v.role === "assistant")
    return { format: "anthropic", evidence: 'a body of type "message"' }
  if ("candidates" in v || "usageMetadata" in v || "promptFeedback" in v)
    return {
      format: "gemini",
      evidence: `a "${"candidates" in v ? "candidates" : "usageMetadata" in v ? "usageMetadata" : "promptFeedback"}" field`,
    }
  if (v.object === "chat.completion.chunk" || v.object === "chat.completion") {
    if (isDeepSeek(v)) return { format: "deepseek", evidence: deepSeekMark(v) }
    return { format: "openai-chat", evidence: `object "${v.object}"` }
  }
  if (type === "error" && typeof v.error === "object") return { format: "anthropic", evidence: 'an "error" event' }
  return undefined
}

function isDeepSeek(v: Record<string, unknown>): boolean {
  return deepSeekMark(v) !== ""
}

/** DeepSeek speaks OpenAI Chat; its own fields and model names tell it apart. */
function deepSeekMark(v: Record<string, unknown>): string {
  if (typeof v.model === "string" && v.model.startsWith("deepseek")) return `model "${v.model}"`
  const usage = v.usage as Record<string, unknown> | undefined
  if (usage && "prompt_cache_hit_tokens" in usage) return 'a "prompt_cache_hit_tokens" usage field'
  // `reasoning_content` is no mark: xAI and other Chat servers send it too.
  return ""
}

/** The JSON documents of a recording: SSE `data:` lines, JSON lines, or one whole body. */
function documentsOf(text: string): unknown[] {
  const out: unknown[] = []
  const parse = (s: string) => {
    try {
      out.push(JSON.parse(s))
    } catch {
      // not JSON: a `[DONE]` marker, a comment, or a broken line
    }
  }
  const trimmed = text.replace(/^\uFEFF/, "").trim()
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
    const before = out.length
    parse(trimmed)
    if (out.length > before) {
      const whole = out.pop()
      return Array.isArray(whole) ? whole : [whole]
    }
  }
  for (const line of text.split(/\r?\n/)) {
    const data = /^data:\s?(.*)$/.exec(line)
    if (data) parse(data[1]!)
    else if (line.trim().startsWith("{")) parse(line.trim())
  }
  return out
}

/**
 * Detects the wire format of a recording from its payloads. A DeepSeek mark anywhere wins over plain OpenAI
 * Chat (its first chunks may look like any Chat stream); otherwise the first payload with a mark decides.
 */
export function detectFormat(text: string): FormatGuess | undefined {
  let first: FormatGuess | undefined
  for (const doc of documentsOf(text)) {
    const guess = formatOfPayload(doc)
    if (!guess) continue
    if (guess.format === "deepseek") return guess
    if (!first) first = guess
    if (first.format !== "openai-chat") return first
  }
  return first
}
