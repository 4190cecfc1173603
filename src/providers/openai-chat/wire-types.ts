/**
 * The OpenAI Chat Completions request body as promptline writes it (DeepSeek and other compatible servers take
 * it too), declared in our own words so the published types need no SDK. Narrow on purpose: only the fields and
 * message shapes the encoder writes. encode.test.ts checks the body stays assignable to the official SDK's type.
 */
import type { ChatCompletionFunctionTool } from "../../tools/native-types.js"
import type { ChatResponseFormat } from "./response-format.js"

/** A text part of a user message. */
export interface ChatCompletionContentPartText {
  type: "text"
  text: string
}

/** An image part of a user message (a `data:` URL). */
export interface ChatCompletionContentPartImage {
  type: "image_url"
  image_url: { url: string; detail?: "auto" | "low" | "high" }
}

/** A part of a user message. */
export type ChatCompletionContentPart = ChatCompletionContentPartText | ChatCompletionContentPartImage

/** A system prompt; OpenAI's reasoning models take it under the `developer` role. */
export interface ChatCompletionSystemMessageParam {
  role: "system" | "developer"
  content: string
  name?: string
}

/** A user message: text, or text and image parts. */
export interface ChatCompletionUserMessageParam {
  role: "user"
  content: string | ChatCompletionContentPart[]
  name?: string
}

/** A function call the model made earlier; `arguments` is JSON text. */
export interface ChatCompletionMessageToolCall {
  id: string
  type: "function"
  function: { name: string; arguments: string }
}

/** An assistant message; `content` is null when it only calls tools. */
export interface ChatCompletionAssistantMessageParam {
  role: "assistant"
  content?: string | null
  tool_calls?: ChatCompletionMessageToolCall[]
  name?: string
}

/** The result of one tool call. */
export interface ChatCompletionToolMessageParam {
  role: "tool"
  tool_call_id: string
  content: string
}

/** One Chat Completions message. */
export type ChatCompletionMessageParam =
  | ChatCompletionSystemMessageParam
  | ChatCompletionUserMessageParam
  | ChatCompletionAssistantMessageParam
  | ChatCompletionToolMessageParam

/** One Chat Completions message, with the fields some compatible servers add. */
export type ChatMessage = ChatCompletionMessageParam & { reasoning_content?: string; name?: string }

/** Which tool the model may or must call. */
export type ChatCompletionToolChoiceOption =
  | "auto"
  | "required"
  | "none"
  | { type: "function"; function: { name: string } }

/** A Chat Completions request body. */
export type OpenAIChatRequest = {
  model: string
  messages: ChatMessage[]
  tools?: ChatCompletionFunctionTool[]
  tool_choice?: ChatCompletionToolChoiceOption
  parallel_tool_calls?: boolean
  max_completion_tokens?: number
  max_tokens?: number
  temperature?: number
  reasoning_effort?: "none" | "minimal" | "low" | "medium" | "high" | "xhigh" | "max"
  stream?: boolean
  stream_options?: { include_usage?: boolean }
  prompt_cache_key?: string
  prompt_cache_retention?: "in_memory" | "24h"
  /** Structured output: any JSON object, or JSON matching a schema. */
  response_format?: ChatResponseFormat
}
