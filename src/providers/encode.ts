/**
 * The request side of the wire layer: one prompt and one history, encoded for any wire format.
 * Every encoder runs the same portability pass first (portability.ts), then writes its provider's body.
 */
import type { Diagnostic } from "../diagnostics.js"
import type { Message } from "../history/message.js"
import type { ModelInfo, ReasoningEffort, WireFormat } from "../models/types.js"
import type { EnabledTool } from "../tools/spec.js"
import { type AnthropicRequest, encodeAnthropic } from "./anthropic/encode.js"
import type { CacheBreakpoint, CacheSettings } from "./cache.js"
import { type DeepSeekRequest, encodeDeepSeek } from "./deepseek/encode.js"
import { encodeGemini, type GeminiRequest } from "./gemini/encode.js"
import { encodeOpenAIChat, type OpenAIChatRequest, type OpenAICompat } from "./openai-chat/encode.js"
import { encodeOpenAIResponses, type OpenAIResponsesRequest } from "./openai-responses/encode.js"
import type { Origin } from "./portability.js"

/** How the model calls tools: the provider's native tool API, or XML written in its text. */
export type ToolCalling = "native" | "xml"

export type { ReasoningEffort } from "../models/types.js"

/** Thinking requested for a turn: an effort, a token budget, or both (each provider uses what it understands). */
export interface ThinkingOptions {
  effort?: ReasoningEffort
  budgetTokens?: number
}

/** Which tool the model must (or must not) call. `required` means any tool. */
export type ToolChoice = "auto" | "required" | "none" | { name: string }

/** The prompt half of a request; a `BuiltPrompt` from the prompt builder fits as it is. */
export interface PromptInput {
  /** The system prompt. */
  text: string
  /** Volatile facts that go at the start of the first user message. */
  contextMessage?: string
  tools: readonly EnabledTool[]
  /** Tools tool search left out of `tools` (a `BuiltPrompt`'s `deferredTools`); read by `nativeToolSearch`. */
  deferredTools?: readonly EnabledTool[]
  /** Default `native`. */
  toolCalling?: ToolCalling
}

/** Everything about a request that is not the prompt or the history. */
export interface EncodeOptions {
  /** Output token limit; defaults to the model's maximum output. */
  maxTokens?: number
  temperature?: number
  /** `false` turns thinking off explicitly; absent leaves the provider's default. */
  thinking?: ThinkingOptions | false
  toolChoice?: ToolChoice
  parallelToolCalls?: boolean
  /** Prompt caching; `false` turns explicit breakpoints off. */
  cache?: CacheSettings | false
  /** Settings for OpenAI-compatible servers (OpenAI Chat and DeepSeek bodies). */
  compat?: OpenAICompat
  /** Default true: the body asks for a streamed answer. */
  stream?: boolean
  /** OpenAI Responses: ask the server to keep the response (default false: stateless, reasoning travels encrypted). */
  store?: boolean
  /**
   * Anthropic, native tools, with deferred tools: send them with `defer_loading` and Anthropic's BM25 tool search
   * tool instead of promptline's search and call tools (the model then calls a found tool by its own name).
   */
  nativeToolSearch?: boolean
  /** Who made history blocks that do not name their model (default: the target model). */
  unknownOrigin?: Origin
}

/** The input of every encoder. */
export interface EncodeInput {
  prompt: PromptInput
  messages: readonly Message[]
  /** The target model, resolved by the caller from the catalog. */
  model: ModelInfo
  options?: EncodeOptions
}

/** An encoded request: the exact body, what was changed or dropped on the way, and the cache breakpoints. */
export interface EncodeResult<Body> {
  body: Body
  diagnostics: Diagnostic[]
  breakpoints: CacheBreakpoint[]
}

/** The request body type of each wire format. */
export interface RequestBodies {
  anthropic: AnthropicRequest
  "openai-chat": OpenAIChatRequest
  "openai-responses": OpenAIResponsesRequest
  gemini: GeminiRequest
  deepseek: DeepSeekRequest
}

/** Encodes a request for `format`. */
export function encodeRequest<F extends WireFormat>(format: F, input: EncodeInput): EncodeResult<RequestBodies[F]> {
  const encoders: { [K in WireFormat]: (input: EncodeInput) => EncodeResult<RequestBodies[K]> } = {
    anthropic: encodeAnthropic,
    "openai-chat": encodeOpenAIChat,
    "openai-responses": encodeOpenAIResponses,
    gemini: encodeGemini,
    deepseek: encodeDeepSeek,
  }
  return encoders[format](input) as EncodeResult<RequestBodies[F]>
}
