/**
 * The types shared by the wire layer: the input and result of every encoder, and the module each wire
 * format folder exports. Encoders and decoders import these from here, never from the dispatchers.
 */
import type { Diagnostic } from "../diagnostics.js"
import type { Message } from "../history/message.js"
import type { ModelInfo, ReasoningEffort, WireFormat } from "../models/types.js"
import type { EnabledTool } from "../tools/spec.js"
import type { ToolCalling } from "../tools/tool-calling.js"
import type { CacheBreakpoint, CacheSettings } from "./cache.js"
import type { ContextManagementOptions } from "./context-management.js"
import type { Overhead, WireFormatDescriptor } from "./descriptor.js"
import type { DecodeOptions, PayloadDecoder, ProviderErrorKind, StreamEvent } from "./stream.js"
import type { WireParts } from "./wire-parts.js"

/** Who made a block that does not name its model: the target model, or some other model. */
export type Origin = "target" | "other"

/** How an OpenAI-compatible server differs from OpenAI's own API. Unset fields follow the provider's preset. */
export interface OpenAICompat {
  /** Role of the system prompt: `developer` for OpenAI's reasoning models, `system` elsewhere. */
  systemRole?: "system" | "developer"
  /** The field that carries the output limit. */
  maxTokensField?: "max_completion_tokens" | "max_tokens"
  /** Tool messages also carry the tool's `name` (some servers want it). */
  toolResultName?: boolean
  /** How the model's own earlier thinking goes back: left out, as `<think>` text, or in `reasoning_content`. */
  thinking?: "omit" | "think-tags" | "reasoning_content"
  /** Ask for token usage at the end of the stream (`stream_options.include_usage`). */
  streamUsage?: boolean
  /** The server takes `reasoning_effort`. */
  reasoningEffort?: boolean
  /** The server takes `prompt_cache_key` and `prompt_cache_retention`. */
  promptCache?: boolean
}

export type { ReasoningEffort } from "../models/types.js"

/**
 * Thinking requested for a turn: an effort, a token budget, or both (each provider uses what it understands).
 * Neither (`{}`) is adaptive thinking: on, and the model decides how much (Anthropic `adaptive`, Gemini's dynamic
 * budget; effort-only providers get `medium`).
 */
export interface ThinkingOptions {
  effort?: ReasoningEffort
  budgetTokens?: number
}

/**
 * The form the answer must take (structured output): any JSON object, or JSON that matches a schema. Plain text
 * is the default and has no option.
 */
export type ResponseFormat =
  | { type: "json" }
  | {
      type: "json-schema"
      /** A JSON Schema, as the client wrote it. */
      schema: Record<string, unknown>
      /** The schema's name (OpenAI requires one; others have no place for it). */
      name?: string
      description?: string
      /** OpenAI strict mode: the client's schema already meets its rules. */
      strict?: boolean
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
  /** Who made history blocks that do not name their model (default: the target model). */
  unknownOrigin?: Origin
  /**
   * Anthropic, native tools, with deferred tools: send them with `defer_loading` and Anthropic's tool search tool
   * instead of promptline's search and call tools (the model then calls a found tool by its own name). `true` and
   * `bm25` use the BM25 search tool, `regex` the regex one; `client` sends the deferred tools with `defer_loading`
   * and no search tool (the client runs its own search and answers with tool references).
   */
  nativeToolSearch?: boolean | "bm25" | "regex" | "client"
  /** Structured output: the answer is JSON (matching a schema when one is given). */
  responseFormat?: ResponseFormat
  /**
   * Provider-side context management: Anthropic context editing and server-side compaction (sent with their beta
   * headers), OpenAI Responses compaction. Other formats ignore it with a diagnostic. Validated by the encoder.
   */
  contextManagement?: ContextManagementOptions
}

/** The input of every encoder. */
export interface EncodeInput {
  prompt: PromptInput
  messages: readonly Message[]
  /** The target model, resolved by the caller from the catalog. */
  model: ModelInfo
  options?: EncodeOptions
}

/**
 * A part of a request an encoder may be unable to carry into its body: an option (prompt-cache hints, the client
 * format's dialect settings and streaming are always honoured in the upstream's own way), one context-management
 * setting, the schema of a structured output, or the prompt's deferred tools.
 */
export type RequestPart =
  | Exclude<keyof EncodeOptions, "cache" | "compat" | "stream" | "unknownOrigin" | "contextManagement">
  | `contextManagement.${keyof ContextManagementOptions}`
  | "responseFormat.schema"
  | "deferredTools"

/** An encoded request: the exact body, what was changed or dropped on the way, and the cache breakpoints. */
export interface EncodeResult<Body> {
  body: Body
  diagnostics: Diagnostic[]
  /** What the request asked for that this body does not carry (the gateway names them in `x-promptline-dropped`). */
  uncarried?: RequestPart[]
  breakpoints: CacheBreakpoint[]
  /** HTTP headers the body needs (Anthropic `anthropic-beta` for context management), when any. */
  headers?: Record<string, string>
}

/**
 * Everything about one wire format, exported by its folder's `index.ts` (or handed to `registerWireFormat`).
 * `Body` is the request body type; `Speaks` is the format whose wire shape it uses (its own
 * name, or the format it extends: DeepSeek speaks OpenAI Chat); `Tool` is its native tool definition type.
 */
export interface WireFormatModule<Body = unknown, Speaks extends WireFormat = WireFormat, Tool = unknown>
  extends WireFormatServer {
  /** The format's name, equal to its key in the table. */
  readonly format: string
  /** The format whose request and stream shapes this one uses. */
  readonly speaks: Speaks
  /** Encodes a request body for this format. */
  encode(input: EncodeInput): EncodeResult<Body>
  /** A fresh payload decoder for one response body. */
  createDecoder(options: DecodeOptions): PayloadDecoder
  /** The events a whole (non-streamed) response body stands for. */
  responseEvents(body: unknown): StreamEvent[]
  /** What the decoder of the answer to an encoded request body must know. */
  decodeOptions(body: unknown): DecodeOptions
  /** The enabled tools in this format's native definition shape. */
  nativeTools(tools: readonly EnabledTool[]): Tool[]
  /** Fixed token costs this format adds around the content (its descriptor's). */
  readonly overhead: Overhead
  /** The format as data: paths, endpoint, counting, cache scheme, overheads, native tool shape, detection. */
  readonly descriptor: WireFormatDescriptor
  /** An encoded body taken apart into the units its provider caches (what the cache explainer lays out). */
  wireParts(body: Record<string, unknown>): WireParts
}

/** The request body type of a format module. */
export type BodyOf<M> = M extends WireFormatModule<infer Body> ? Body : never

/** What the URL of a request says that its body does not (Gemini puts the model and the streaming mode there). */
export interface RequestRoute {
  model?: string
  stream?: boolean
  /** Gemini: `alt=sse` was asked for (otherwise a streamed answer is one JSON array). */
  sse?: boolean
}

/**
 * A request body a client sent, read back into promptline's terms: the inverse of `encode`. Message ids are
 * `m1`, `m2`, … and `ts` is 0 (the body has neither). Client tools become `EnabledTool`s of kind `client`.
 */
export interface DecodedRequest {
  /** The model the client asked for. */
  model: string
  prompt: PromptInput
  messages: Message[]
  /** Output limit, temperature, thinking, tool choice, parallel calls, cache hints, stream, store, compat. */
  options: EncodeOptions
  /**
   * What the body holds that promptline does not model, as JSON paths (`metadata`, `context_management`,
   * `messages[3].content[0]` for an unknown block type, `tools[2]` for a server tool): passed through untouched in
   * same-format mode, dropped (and named) when translating.
   */
  unmodeled: string[]
  /**
   * The JSON paths each modeled part was read from (`thinking` ← `thinking`, `output_config.effort`; the deferred
   * tools ← `tools[4]`, …), so that what an upstream cannot carry is named in the client's own terms.
   */
  sources: Partial<Record<RequestPart, string[]>>
  /** Things changed on the way in (a block read in a lossy way), as data. */
  diagnostics: Diagnostic[]
}

/** What a stream encoder stamps into the answer it writes. */
export interface StreamEncodeOptions {
  /** The model name the client sees. */
  model: string
  /** The response id (`msg_…`, `chatcmpl-…`, `resp_…`); derived deterministically when absent. */
  id?: string
  /** Unix seconds for `created` fields (the caller supplies it: encoders read no clock). */
  created?: number
  /** OpenAI Chat: the request asked for a usage chunk (`stream_options.include_usage`). */
  includeUsage?: boolean
  /** Gemini: server-sent events (`alt=sse`) rather than one JSON array. */
  sse?: boolean
  /**
   * promptline's count of the prompt's input tokens, for a format that reports the input before the answer
   * (Anthropic's `message_start`) when the upstream's usage has not arrived by then; its figures replace it later.
   */
  inputTokens?: number
  /** The client's request body, whose settings an answer echoes (the Responses `response` object). */
  request?: Record<string, unknown>
}

/**
 * Writes normalized stream events as this format's streamed answer (server-sent events, or Gemini's JSON array).
 * Stateful; one per response. Each call returns the text to send now (possibly empty).
 */
export interface StreamEncoder {
  push(event: StreamEvent): string
  /** The answer ended: closing frames (and the terminator, such as `data: [DONE]`). */
  end(): string
}

/** An answer that is an error, in this format's shape. */
export interface ErrorResponse {
  status: number
  headers: Record<string, string>
  body: unknown
}

/** An error to put in a format's shape: the normalized kind, the message, and the wait a rate limit asks for. */
export interface ErrorInput {
  kind: ProviderErrorKind | "not-found" | "overloaded"
  message: string
  retryAfterMs?: number
  /** The request field at fault, when known. */
  param?: string
}

/**
 * The half of a format module that serves clients (the gateway, the replay server): request decoding and
 * answer encoding.
 */
export interface WireFormatServer {
  /** Reads a request body a client sent. Throws a `ProviderError` (`invalid-request`) naming the field at fault. */
  decodeRequest(body: unknown, route?: RequestRoute): DecodedRequest
  /** A fresh stream encoder for one answer. */
  createStreamEncoder(options: StreamEncodeOptions): StreamEncoder
  /** The whole (non-streamed) answer body for the events of one response. */
  encodeResponse(events: readonly StreamEvent[], options: StreamEncodeOptions): unknown
  /** An error answer in this format's shape and status. */
  encodeError(error: ErrorInput): ErrorResponse
  /**
   * The format's stream reports the input tokens in its first event, before any content (Anthropic): a client
   * reads them there, and an upstream of this format has them before the answer starts.
   */
  readonly inputUsageAtStart?: boolean
}
