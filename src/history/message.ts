/**
 * The internal message format: Anthropic-style content blocks, the lingua franca between the
 * history layer and every wire format. Plain data, JSON-serializable.
 */

export interface TextBlock {
  type: "text"
  text: string
}

/** An image, base64-encoded. */
export interface ImageBlock {
  type: "image"
  mediaType: string
  data: string
}

export interface ToolUseBlock {
  type: "tool_use"
  id: string
  name: string
  input: unknown
  /** Provider-specific data that must travel back with this call (e.g. Gemini's thoughtSignature). */
  signature?: string
  /** The model that produced `signature`; it is sent back only to that model. */
  model?: string
}

export interface ToolResultBlock {
  type: "tool_result"
  toolUseId: string
  content: string | (TextBlock | ImageBlock)[]
  isError?: boolean
  /**
   * Deferred tools the result names so that their definitions are loaded (Anthropic's `tool_reference` parts, which
   * a client's own tool search answers with), after its content.
   */
  references?: string[]
}

/**
 * A tool search the server ran inside an answer (Anthropic's tool search, or the gateway's over deferred tools):
 * the call and its result in one block. The tools it found are loaded from then on.
 */
export interface ToolSearchBlock {
  type: "tool_search"
  /** The call's id (Anthropic `srvtoolu_…`). */
  id: string
  /** The search tool's name as the client knows it (`tool_search_tool_bm25`, `tool_search_tool_regex`). */
  name: string
  /** The call's input (`{ query }`, or `{ pattern }` for the regex search). */
  input: unknown
  /** The names of the tools found, best first. */
  found: string[]
  /** Why the search failed (Anthropic's `error_code`), when it did; `found` is then empty. */
  error?: string
}

/** The model's reasoning; `signature` is opaque and valid only for `model`. */
export interface ThinkingBlock {
  type: "thinking"
  text: string
  signature?: string
  model?: string
  /**
   * The provider's id of the reasoning item, when it has one (OpenAI Responses `rs_…`; `signature` then holds
   * its `encrypted_content`). Needed to send the reasoning back.
   */
  id?: string
}

/** Reasoning the provider returned encrypted; only the producing model can read it. */
export interface RedactedThinkingBlock {
  type: "redacted_thinking"
  data: string
  model?: string
}

/**
 * A provider's compaction item: the server condensed the conversation before it into `payload` (opaque, valid
 * only for the provider and wire format that made it) and, when the provider gives one, a readable `summary`.
 * Sent back only to that provider in that format; elsewhere it is dropped with a diagnostic (docs/context.md).
 */
export interface CompactionBlock {
  type: "compaction"
  /** The wire format whose server made it (`anthropic`, `openai-responses`). */
  format: string
  /** The provider that made it (the catalog's provider id), when known. */
  provider?: string
  /** The opaque payload (OpenAI `encrypted_content`; Anthropic `encrypted_content` when given). */
  payload?: string
  /** The readable summary, when the provider gives one (Anthropic's `content`). */
  summary?: string
  /** The provider's id of the item (OpenAI `cmp_…`), when it has one. */
  id?: string
}

export type Block =
  | TextBlock
  | ImageBlock
  | ToolUseBlock
  | ToolResultBlock
  | ThinkingBlock
  | RedactedThinkingBlock
  | CompactionBlock
  | ToolSearchBlock

/**
 * Who a message is from. `system` is a system message in the middle of the conversation (instructions that
 * apply from there on, after the system prompt); it holds text blocks only, and each encoder maps it to its
 * provider's nearest form (docs/wire-formats.md).
 */
export type Role = "user" | "assistant" | "system"

/** One message of the conversation. `ts` is milliseconds since the epoch, supplied by the caller. */
export interface Message {
  id: string
  role: Role
  content: Block[]
  ts: number
}

/** Creates a text block. */
export const text = (value: string): TextBlock => ({ type: "text", text: value })

/** How `textOf` joins blocks: the separator (default a blank line) and what stands for an image (default nothing). */
export interface TextOfOptions {
  separator?: string
  /** When given, each image block adds this text in its place. */
  image?: string
}

/** The text of a message's (or a tool result's) text blocks, joined by blank lines unless told otherwise. */
export function textOf(holder: { content: string | readonly Block[] }, options: TextOfOptions = {}): string {
  if (typeof holder.content === "string") return holder.content
  const parts: string[] = []
  for (const b of holder.content) {
    if (b.type === "text") parts.push(b.text)
    else if (b.type === "image" && options.image !== undefined) parts.push(options.image)
  }
  return parts.join(options.separator ?? "\n\n")
}

/** The tool_use blocks of a message, in order. */
export function toolUsesOf(message: Pick<Message, "content">): ToolUseBlock[] {
  return message.content.filter((b): b is ToolUseBlock => b.type === "tool_use")
}

/** The tool_result blocks of a message, in order. */
export function toolResultsOf(message: Pick<Message, "content">): ToolResultBlock[] {
  return message.content.filter((b): b is ToolResultBlock => b.type === "tool_result")
}
