/**
 * The Anthropic Messages request body as promptline writes it, declared in our own words so the published
 * types need no SDK. Narrow on purpose: only the fields and block types the encoder writes.
 * wire-types.test.ts checks each stays assignable to the official SDK's type.
 */
import type { AnthropicCacheControl, AnthropicTool } from "../../tools/native-types.js"

export type { AnthropicCacheControl as CacheControlEphemeral } from "../../tools/native-types.js"

/** A text block; `cache_control` marks the end of a cached prefix. */
export interface TextBlockParam {
  type: "text"
  text: string
  cache_control?: AnthropicCacheControl
}

/** Image bytes, base64, in one of the media types the API takes. */
export interface Base64ImageSource {
  type: "base64"
  media_type: "image/jpeg" | "image/png" | "image/gif" | "image/webp"
  data: string
}

/** An image block. */
export interface ImageBlockParam {
  type: "image"
  source: Base64ImageSource
  cache_control?: AnthropicCacheControl
}

/** A tool call the model made earlier. */
export interface ToolUseBlockParam {
  type: "tool_use"
  id: string
  name: string
  input: unknown
  cache_control?: AnthropicCacheControl
}

/** A deferred tool named in a tool result: the API loads its definition. */
export interface ToolReferenceBlockParam {
  type: "tool_reference"
  tool_name: string
}

/** The result of a tool call: text, or text and images, and references to deferred tools. */
export interface ToolResultBlockParam {
  type: "tool_result"
  tool_use_id: string
  content?: string | (TextBlockParam | ImageBlockParam | ToolReferenceBlockParam)[]
  is_error?: boolean
  cache_control?: AnthropicCacheControl
}

/** The model's own thinking, sent back with its signature. */
export interface ThinkingBlockParam {
  type: "thinking"
  thinking: string
  signature: string
}

/** A call of a server tool (here: a tool search) the API ran inside the answer. */
export interface ServerToolUseBlockParam {
  type: "server_tool_use"
  id: string
  name: AnthropicToolSearchName
  input: Record<string, unknown>
}

/** The names Anthropic's search tools call themselves by. */
export type AnthropicToolSearchName = "tool_search_tool_bm25" | "tool_search_tool_regex"

/** Why a tool search failed. */
export type ToolSearchErrorCode = "invalid_tool_input" | "unavailable" | "too_many_requests" | "execution_time_exceeded"

/** The result of a tool search: the tools found, as references, or an error. */
export interface ToolSearchToolResultBlockParam {
  type: "tool_search_tool_result"
  tool_use_id: string
  content:
    | { type: "tool_search_tool_search_result"; tool_references: ToolReferenceBlockParam[] }
    | { type: "tool_search_tool_result_error"; error_code: ToolSearchErrorCode }
}

/** Thinking the API returned encrypted. */
export interface RedactedThinkingBlockParam {
  type: "redacted_thinking"
  data: string
}

/** A provider compaction block sent back: the summary (null when the compaction failed) and opaque fields verbatim. */
export interface CompactionBlockParam {
  type: "compaction"
  content: string | null
  encrypted_content?: string | null
  signature?: string | null
  [opaque: string]: unknown
}

/** A `{ type, value }` count. */
export interface CountParam<T extends string> {
  type: T
  value: number
}

/** One context-management edit of a request. */
export type ContextManagementEdit =
  | {
      type: "clear_tool_uses_20250919"
      trigger?: CountParam<"input_tokens">
      keep?: CountParam<"tool_uses">
      clear_at_least?: CountParam<"input_tokens">
      exclude_tools?: string[]
      clear_tool_inputs?: boolean | string[]
    }
  | { type: "clear_thinking_20251015"; keep?: CountParam<"thinking_turns"> | "all" }
  | {
      type: "compact_20260112"
      trigger?: CountParam<"input_tokens">
      instructions?: string
      pause_after_compaction?: boolean
    }

/** A content block of a message. */
export type ContentBlockParam =
  | CompactionBlockParam
  | TextBlockParam
  | ImageBlockParam
  | ToolUseBlockParam
  | ToolResultBlockParam
  | ThinkingBlockParam
  | RedactedThinkingBlockParam
  | ServerToolUseBlockParam
  | ToolSearchToolResultBlockParam

/** A user or assistant message. */
export interface TurnMessageParam {
  role: "user" | "assistant"
  content: string | ContentBlockParam[]
}

/** A system message inside the conversation (only on models that take them): text only. */
export interface SystemMessageParam {
  role: "system"
  content: string | TextBlockParam[]
}

/** One message of the conversation. */
export type MessageParam = TurnMessageParam | SystemMessageParam

/** Which tool the model may or must call; `disable_parallel_tool_use` asks for one call per turn. */
export type AnthropicToolChoice =
  | { type: "auto"; disable_parallel_tool_use?: boolean }
  | { type: "any"; disable_parallel_tool_use?: boolean }
  | { type: "tool"; name: string; disable_parallel_tool_use?: boolean }
  | { type: "none" }

/** Extended thinking: a token budget, adaptive, or off. */
export type ThinkingConfigParam =
  | { type: "enabled"; budget_tokens: number }
  | { type: "adaptive" }
  | { type: "disabled" }

/** Anthropic's server-side tool search tool (BM25 or regex variant). */
export type AnthropicToolSearchTool =
  | { type: "tool_search_tool_bm25_20251119"; name: "tool_search_tool_bm25"; cache_control?: AnthropicCacheControl }
  | { type: "tool_search_tool_regex_20251119"; name: "tool_search_tool_regex"; cache_control?: AnthropicCacheControl }

/** An Anthropic Messages request body. */
export type AnthropicRequest = {
  model: string
  max_tokens: number
  messages: MessageParam[]
  system?: string | TextBlockParam[]
  tools?: (AnthropicTool | AnthropicToolSearchTool)[]
  tool_choice?: AnthropicToolChoice
  thinking?: ThinkingConfigParam
  /** Effort, and structured output (a JSON schema the answer matches). */
  output_config?: {
    effort?: "low" | "medium" | "high" | "xhigh" | "max"
    format?: { type: "json_schema"; schema: Record<string, unknown> }
  }
  /** Context editing and server-side compaction (beta; the encoder returns the `anthropic-beta` header). */
  context_management?: { edits: ContextManagementEdit[] }
  stream?: boolean
}
