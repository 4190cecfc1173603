/**
 * Which wire format a written conversation is in: promptline's own message array, or a provider's request
 * (a whole body, or just its history: an Anthropic or OpenAI `messages` array, a Responses `input`, Gemini
 * `contents`). Read from marks only one format has; the answer names the mark it rests on.
 */
import { descriptorOf, type WireFormat, wireFormatDescriptors } from "./descriptors.js"

/** A conversation's format: a wire format, or `internal` (promptline's message array). */
export type ConversationFormat = WireFormat | "internal"

/** A detected conversation: its format, the request body to decode (a bare history wrapped), and the evidence. */
export interface ConversationGuess {
  format: ConversationFormat
  /** For a wire format: a request body holding the conversation. For `internal`: the array itself. */
  body: unknown
  evidence: string
}

type Json = Record<string, unknown>

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v)
const blocksOf = (m: Json): Json[] => (Array.isArray(m.content) ? m.content.filter(isObject) : [])

const RESPONSES_ITEMS = new Set([
  "message",
  "function_call",
  "function_call_output",
  "reasoning",
  "item_reference",
  "custom_tool_call",
  "custom_tool_call_output",
  "compaction",
])
const RESPONSES_PARTS = new Set(["input_text", "output_text", "input_image", "input_file"])
// Anthropic's own blocks; `tool_use`, `text` and `redacted_thinking` are left out: promptline's blocks of those types
// are written the same way, so they mark neither format.
const ANTHROPIC_BLOCKS = new Set(["tool_result", "document", "server_tool_use"])
const CHAT_PARTS = new Set(["image_url", "input_audio", "file"])

/** The mark of a message array, or undefined when it has none (plain role/content text). */
function arrayMark(items: readonly unknown[]): { format: ConversationFormat; evidence: string } | undefined {
  for (const [i, item] of items.entries()) {
    if (!isObject(item)) continue
    const at = `element [${i}]`
    // No provider's message has both: checked first, so promptline's history is read as its own whatever its
    // first block is (an assistant's tool call reads the same in Anthropic's format).
    if (typeof item.id === "string" && typeof item.ts === "number")
      return { format: "internal", evidence: `${at} has an id and a time` }
    if (Array.isArray(item.parts) || item.role === "model") return { format: "gemini", evidence: `${at} has "parts"` }
    if (typeof item.type === "string" && RESPONSES_ITEMS.has(item.type))
      return { format: "openai-responses", evidence: `${at} is a "${item.type}" item` }
    if (item.role === "tool" || item.role === "developer" || "tool_calls" in item || "tool_call_id" in item)
      return { format: "openai-chat", evidence: `${at} is an OpenAI Chat message` }
    for (const b of blocksOf(item)) {
      if (typeof b.type !== "string") continue
      if (RESPONSES_PARTS.has(b.type)) return { format: "openai-responses", evidence: `${at} has an "${b.type}" part` }
      if (CHAT_PARTS.has(b.type)) return { format: "openai-chat", evidence: `${at} has an "${b.type}" part` }
      if (
        "toolUseId" in b ||
        "mediaType" in b ||
        (b.type === "thinking" && "text" in b) ||
        (b.type === "tool_use" && ("signature" in b || "model" in b))
      )
        return { format: "internal", evidence: `${at} is a promptline block` }
      if (ANTHROPIC_BLOCKS.has(b.type) || "source" in b || "tool_use_id" in b)
        return { format: "anthropic", evidence: `${at} has an Anthropic "${b.type}" block` }
    }
  }
  return undefined
}

/** The wire format of a message array inside a body, defaulting to the body's own marks. */
function messagesFormat(body: Json, messages: readonly unknown[]): { format: WireFormat; evidence: string } {
  if (typeof body.model === "string" && body.model.startsWith("deepseek"))
    return { format: "deepseek", evidence: `model "${body.model}"` }
  const mark = arrayMark(messages)
  if (mark && mark.format !== "internal" && mark.format !== "openai-responses" && mark.format !== "gemini")
    return { format: mark.format, evidence: mark.evidence }
  if ("system" in body || "max_tokens" in body || "thinking" in body)
    return { format: "anthropic", evidence: 'a body with "messages" and Anthropic fields' }
  if (messages.some((m) => isObject(m) && m.role === "system"))
    return { format: "openai-chat", evidence: 'a "system" message in "messages"' }
  return { format: "anthropic", evidence: 'a body with "messages" of plain text' }
}

/**
 * The format of a parsed conversation file: a request body (marked by `contents`, `input`, `messages`, or the
 * history field only one other format's descriptor names), or an
 * array (promptline's messages or a provider's history). Plain role/content text messages read the same in every
 * format; they are taken as promptline's own when they carry ids, else as Anthropic messages.
 */
export function detectConversation(data: unknown): ConversationGuess | undefined {
  if (isObject(data)) {
    if (Array.isArray(data.contents)) return { format: "gemini", body: data, evidence: 'a body with "contents"' }
    if ("input" in data || "instructions" in data)
      return { format: "openai-responses", body: data, evidence: 'a body with "input"' }
    if (Array.isArray(data.messages)) {
      const { format, evidence } = messagesFormat(data, data.messages)
      return { format, body: data, evidence }
    }
    // Any other format (a registered one): the one whose descriptor alone names a history field the body has.
    const owners = wireFormatDescriptors().filter((d) => Array.isArray(data[d.history]))
    if (owners.length === 1)
      return { format: owners[0]!.format, body: data, evidence: `a body with "${owners[0]!.history}"` }
    return undefined
  }
  if (!Array.isArray(data)) return undefined
  const mark = arrayMark(data) ?? { format: "anthropic" as const, evidence: "plain role/content messages" }
  return { format: mark.format, body: wrap(mark.format, data), evidence: mark.evidence }
}

/** A bare history of a format as a request body of that format (promptline's own stays the array). */
export function wrap(format: ConversationFormat, history: unknown[]): unknown {
  return format === "internal" ? history : { [descriptorOf(format).history]: history }
}
