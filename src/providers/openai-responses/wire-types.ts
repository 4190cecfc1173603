/**
 * The OpenAI Responses request body as promptline writes it, declared in our own words so the published types
 * need no SDK. Narrow on purpose: only the fields and input items the encoder writes. encode.test.ts checks the
 * body stays assignable to the official SDK's type.
 */
import type { ResponsesFunctionTool } from "../../tools/native-types.js"
import type { ResponsesTextFormat } from "../openai-chat/response-format.js"

/** Text in an input message or a function call's output. */
export interface ResponseInputText {
  type: "input_text"
  text: string
}

/** An image in an input message or a function call's output (a `data:` URL). */
export interface ResponseInputImage {
  type: "input_image"
  image_url: string
  detail: "auto" | "low" | "high"
}

/** A part of an input message. */
export type ResponseInputContent = ResponseInputText | ResponseInputImage

/** The output of a function call as parts (text and images). */
export type ResponseFunctionCallOutputItemList = ResponseInputContent[]

/** A user or developer message item. */
export interface ResponseInputMessage {
  type: "message"
  role: "user" | "developer" | "system"
  content: ResponseInputContent[]
}

/** An earlier assistant answer, as text. */
export interface ResponseAssistantMessage {
  type: "message"
  role: "assistant"
  content: string
}

/** A function call the model made earlier; `arguments` is JSON text. */
export interface ResponseFunctionCall {
  type: "function_call"
  call_id: string
  name: string
  arguments: string
}

/** The result of one function call. */
export interface ResponseFunctionCallOutput {
  type: "function_call_output"
  call_id: string
  output: string | ResponseFunctionCallOutputItemList
}

/** A reasoning item sent back: its id, its summary, and the encrypted reasoning. */
export interface ResponseReasoningItem {
  type: "reasoning"
  id: string
  summary: { type: "summary_text"; text: string }[]
  encrypted_content?: string
}

/** A compaction item sent back: the server's condensed context, opaque. */
export interface ResponseCompactionItem {
  type: "compaction"
  id?: string
  encrypted_content: string
}

/** One item of the `input` list. */
export type ResponseInputItem =
  | ResponseCompactionItem
  | ResponseInputMessage
  | ResponseAssistantMessage
  | ResponseFunctionCall
  | ResponseFunctionCallOutput
  | ResponseReasoningItem

/** Whether the model may, must or must not call a tool. */
export type ToolChoiceOptions = "auto" | "required" | "none"

/** The one function the model must call. */
export interface ToolChoiceFunction {
  type: "function"
  name: string
}

/** A Responses API request body. */
export type OpenAIResponsesRequest = {
  model: string
  /** Server-side compaction: the server compacts once the rendered input crosses `compact_threshold` tokens. */
  context_management?: { type: "compaction"; compact_threshold?: number }[]
  instructions?: string
  input?: ResponseInputItem[]
  tools?: ResponsesFunctionTool[]
  tool_choice?: ToolChoiceOptions | ToolChoiceFunction
  parallel_tool_calls?: boolean
  max_output_tokens?: number
  temperature?: number
  reasoning?: {
    effort?: "none" | "minimal" | "low" | "medium" | "high" | "xhigh" | "max"
    summary?: "auto" | "concise" | "detailed"
  }
  include?: "reasoning.encrypted_content"[]
  store?: boolean
  /** Structured output: the format of the answer's text. */
  text?: { format: ResponsesTextFormat }
  stream?: boolean
  prompt_cache_key?: string
  prompt_cache_retention?: "in_memory" | "24h"
}
