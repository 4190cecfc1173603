/**
 * The normalized stream: every wire format's decoder emits these events, so the agent loop does
 * not care which provider (or which tool-calling dialect) produced an answer.
 */

/** Why the model stopped. */
export type StopReason = "end" | "tool_use" | "length" | "refusal" | "error"

/** Token usage as reported by the provider. `input` excludes cache reads and writes. */
export interface Usage {
  input: number
  output: number
  cacheRead: number
  cacheWrite: number
  /** Reasoning tokens, already included in `output`. */
  reasoning?: number
}

/** No usage. */
export const ZERO_USAGE: Usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 }

/** Two usage records added up (reasoning tokens when either has them). */
export function addUsage(a: Usage, b: Usage): Usage {
  const sum: Usage = {
    input: a.input + b.input,
    output: a.output + b.output,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheWrite: a.cacheWrite + b.cacheWrite,
  }
  if (a.reasoning !== undefined || b.reasoning !== undefined) sum.reasoning = (a.reasoning ?? 0) + (b.reasoning ?? 0)
  return sum
}

/** What kind of failure a provider reported; decides whether to retry, compact, or give up. */
export type ProviderErrorKind =
  | "context-overflow"
  | "rate-limit"
  | "quota"
  | "auth"
  | "invalid-request"
  | "server"
  | "network"

/**
 * What went wrong, for error events: a provider error kind (ProviderErrorKind above)
 * or a stream-level problem: `truncated` (the body ended before the response did), `partial-call`
 * (a tool call was cut off), `invalid-arguments` (tool-call arguments are not valid JSON),
 * `malformed` (a payload that is not JSON or not the expected shape).
 */
export type StreamErrorKind = ProviderErrorKind | "truncated" | "partial-call" | "invalid-arguments" | "malformed"

/** One context-management edit a provider applied to a request (Anthropic `context_management.applied_edits`). */
export interface AppliedContextEdit {
  /** The edit's wire type (`clear_tool_uses_20250919`, `clear_thinking_20251015`, …). */
  type: string
  clearedInputTokens?: number
  clearedToolUses?: number
  clearedThinkingTurns?: number
}

export type StreamEvent =
  /** A response began. A `start` while a response is still open means the provider restarted it: discard the partial one. */
  | { type: "start"; id?: string; model?: string }
  /** Visible text. A change of `index` starts a new text block. */
  | { type: "text"; delta: string; index?: number }
  /**
   * Reasoning text; `signature` is opaque and belongs to the block, `id` is the provider's id of the
   * reasoning item (OpenAI Responses). A change of `index` starts a new block.
   */
  | { type: "thinking"; delta: string; signature?: string; id?: string; index?: number }
  | { type: "redacted_thinking"; data: string }
  /**
   * A provider's compaction item, whole (see `CompactionBlock`): `format` is the wire format whose server made it,
   * `payload` its opaque content, `summary` its readable summary when it gives one.
   */
  | { type: "compaction"; format: string; payload?: string; summary?: string; id?: string }
  /** A tool search the server ran, whole: the call and the tools it found (see `ToolSearchBlock`). */
  | { type: "tool_search"; id: string; name: string; input: unknown; found: string[]; error?: string }
  /** The context-management edits the provider applied before answering. */
  | { type: "context_edits"; edits: AppliedContextEdit[] }
  | { type: "tool_call_start"; id: string; name: string }
  /**
   * The next piece of the call's arguments as JSON text: joined, the pieces are the JSON of the call's final input
   * (a freeform call's `{"input": …}` too); arguments a model wrote that are not JSON come as it wrote them.
   */
  | { type: "tool_call_delta"; id: string; argsDelta: string }
  | { type: "tool_call_end"; id: string; input: unknown; signature?: string }
  /** A cumulative snapshot: a later usage event replaces an earlier one. */
  | ({ type: "usage" } & Usage)
  /** The response ended; `raw` is the provider's own stop reason, `message` its explanation (a refusal's, Gemini's finishMessage). */
  | { type: "stop"; reason: StopReason; raw?: string; message?: string }
  | {
      type: "error"
      message: string
      kind?: StreamErrorKind
      /** The text that could not be used (invalid arguments, a cut-off call, a bad payload). */
      raw?: string
      /** The tool call the error is about. */
      toolCallId?: string
      /** Provider-suggested wait before retrying, in milliseconds. */
      retryAfterMs?: number
    }

/** The error member of the StreamEvent union. */
export type StreamErrorEvent = Extract<StreamEvent, { type: "error" }>

/** What a decoder saw besides the events it emitted: counters for the curious and for tests. */
export interface DecodeStats {
  /** Bytes fed to the decoder (0 when it was given parsed payloads). */
  bytes: number
  /** Payloads decoded (SSE data fields or JSON lines). */
  payloads: number
  /** SSE comment lines (keep-alives). */
  comments: number
  /** Ping / keep-alive events. */
  pings: number
  /** Payloads that were not JSON or not the expected shape. */
  malformed: number
  /** A `message_start` repeated for the message already open (a duplicating gateway). */
  duplicateStarts: number
  /** A new response started while one was open (a spliced upstream retry). */
  restarts: number
  /** Event and delta types this decoder does not know, by type: ignored. */
  unknown: Record<string, number>
  /** Known things with no place in the normalized stream (server-side tool blocks, citations), by type. */
  ignored: Record<string, number>
}

/** Fresh, zeroed decode counters. */
export function emptyStats(): DecodeStats {
  return {
    bytes: 0,
    payloads: 0,
    comments: 0,
    pings: 0,
    malformed: 0,
    duplicateStarts: 0,
    restarts: 0,
    unknown: {},
    ignored: {},
  }
}

/** Adds one to a by-type counter. */
export function count(counter: Record<string, number>, key: string): void {
  counter[key] = (counter[key] ?? 0) + 1
}

/** What a decoder needs to know about the request whose answer it reads. */
export interface DecodeOptions {
  /**
   * The request asked for a usage chunk (OpenAI Chat and DeepSeek `stream_options.include_usage`):
   * a stream that ends without one is truncated. Default false.
   */
  expectUsage?: boolean
}

/**
 * The per-format half of a decoder: parsed payloads in, stream events out. Stateful; one per
 * response body. Events are appended to `out` (no intermediate arrays on the hot path).
 */
export interface PayloadDecoder {
  /** Decodes one JSON payload; `event` is the SSE event name when there was one. */
  push(payload: unknown, out: StreamEvent[], event?: string): void
  /**
   * Optional fast path for a raw data field: decodes it without JSON.parse when it has the exact shape
   * of a hot event, else returns false (the caller then parses it and calls `push`).
   */
  pushData?(data: string, out: StreamEvent[]): boolean
  /** A data field that is not JSON (OpenAI's `[DONE]`, or garbage). */
  pushRaw(data: string, out: StreamEvent[]): void
  /** The body ended: closes open calls, reports truncation, emits the final usage and stop. */
  end(out: StreamEvent[]): void
  /**
   * Reading the body failed (`error`, a network error): an open response reports it and ends
   * incomplete; a failure after the response ended is only counted (`stats.ignored`).
   */
  fail(error: StreamErrorEvent, out: StreamEvent[]): void
  readonly stats: DecodeStats
}

/**
 * Finishes a tool call whose arguments arrived as JSON text: emits `tool_call_end` with the parsed
 * input, or an `invalid-arguments` error that keeps the raw text followed by an end with `{}` input
 * (so the history keeps a tool_use the agent can answer with an error result).
 */
export function endToolCall(id: string, rawArgs: string, out: StreamEvent[], signature?: string): void {
  let input: unknown = {}
  if (rawArgs.trim() !== "") {
    try {
      input = JSON.parse(rawArgs)
    } catch (error) {
      out.push({
        type: "error",
        kind: "invalid-arguments",
        message: `tool call ${id}: arguments are not valid JSON (${(error as Error).message})`,
        raw: rawArgs,
        toolCallId: id,
      })
      input = {}
    }
  }
  const end: StreamEvent = signature
    ? { type: "tool_call_end", id, input, signature }
    : { type: "tool_call_end", id, input }
  out.push(end)
}

/** Reports a tool call the stream cut off: an error that keeps the arguments received so far. */
export function partialToolCall(id: string, name: string, rawArgs: string, out: StreamEvent[]): void {
  out.push({
    type: "error",
    kind: "partial-call",
    message: `tool call ${id} (${name}) was cut off before it ended`,
    raw: rawArgs,
    toolCallId: id,
  })
}

/** A number from a provider usage field, or 0. */
export function num(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0
}

/** A plain-object view of unknown JSON (or undefined). */
export function obj(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined
}

/** A string field of unknown JSON (or undefined). */
export function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined
}
