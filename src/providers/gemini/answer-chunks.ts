/**
 * Normalized stream events as Gemini `GenerateContentResponse` chunks: one chunk per text, thought or function
 * call part, and a last chunk with the finish reason and the usage (the shape Gemini streams have). The framing
 * (server-sent events or one JSON array) and the whole-answer merge are the callers' (stream-encode.ts).
 */
import { isErrorLevel } from "../completeness.js"
import type { StreamErrorEvent, StreamEvent, Usage } from "../stream.js"
import type { StreamEncodeOptions } from "../types.js"
import { geminiErrorBody } from "./errors.js"

/** A content part as written. */
export type AnswerPart = Record<string, unknown>

/** Finish reasons Gemini itself sends; a stop whose `raw` is one of these keeps it. */
const FINISH_REASONS = new Set([
  "STOP",
  "MAX_TOKENS",
  "SAFETY",
  "RECITATION",
  "LANGUAGE",
  "OTHER",
  "BLOCKLIST",
  "PROHIBITED_CONTENT",
  "SPII",
  "MALFORMED_FUNCTION_CALL",
  "IMAGE_SAFETY",
  "UNEXPECTED_TOOL_CALL",
  "TOO_MANY_TOOL_CALLS",
])

const FINISH: Record<Extract<StreamEvent, { type: "stop" }>["reason"], string> = {
  end: "STOP",
  tool_use: "STOP",
  length: "MAX_TOKENS",
  refusal: "SAFETY",
  error: "OTHER",
}

/** Our usage as Gemini's `usageMetadata`: the prompt count includes cached tokens, thoughts are counted apart. */
export function usageMetadata(usage: Usage): Record<string, unknown> {
  const prompt = usage.input + usage.cacheRead + usage.cacheWrite
  const reasoning = usage.reasoning ?? 0
  const meta: Record<string, unknown> = {
    promptTokenCount: prompt,
    candidatesTokenCount: Math.max(0, usage.output - reasoning),
    totalTokenCount: prompt + usage.output,
    promptTokensDetails: [{ modality: "TEXT", tokenCount: prompt }],
  }
  if (usage.cacheRead > 0) meta.cachedContentTokenCount = usage.cacheRead
  if (reasoning > 0) meta.thoughtsTokenCount = reasoning
  return meta
}

interface OpenCall {
  name: string
  args: string
}

/**
 * Turns events into chunks, handing each to `emit` as soon as it is whole. A thinking event with no text and a
 * signature (a signature of its own) rides on the next text part, or on a part of its own. Call ids are written
 * only when they differ from the id Gemini's decoder derives (`<responseId>_<n>`), as Gemini sends none.
 */
export class AnswerChunks {
  readonly #emit: (chunk: Record<string, unknown>) => void
  readonly #model: string
  #id: string
  #pending: string | undefined
  readonly #calls = new Map<string, OpenCall>()
  #callCount = 0
  #usage: Usage | undefined
  /** A stop or an error was written: the answer is over. */
  #closed = false

  constructor(options: StreamEncodeOptions, emit: (chunk: Record<string, unknown>) => void) {
    this.#emit = emit
    this.#model = options.model
    this.#id = options.id ?? "promptline-response"
    this.#explicitId = options.id !== undefined
  }

  readonly #explicitId: boolean

  /** Takes one event. */
  push(event: StreamEvent): void {
    if (this.#closed) return
    switch (event.type) {
      case "start":
        if (!this.#explicitId && event.id) this.#id = event.id
        return
      case "text":
        if (event.delta !== "") this.#part(this.#signed({ text: event.delta }))
        return
      case "thinking":
        if (event.delta === "") {
          if (event.signature === undefined) return
          this.#flushSignature()
          this.#pending = event.signature
          return
        }
        this.#flushSignature()
        this.#part({
          text: event.delta,
          thought: true,
          ...(event.signature ? { thoughtSignature: event.signature } : {}),
        })
        return
      case "redacted_thinking":
        // Gemini has no encrypted reasoning a client could send back.
        return
      case "tool_call_start":
        this.#calls.set(event.id, { name: event.name, args: "" })
        return
      case "tool_call_delta": {
        const call = this.#calls.get(event.id)
        if (call) call.args += event.argsDelta
        return
      }
      case "tool_call_end":
        this.#call(event)
        return
      case "usage": {
        const { type: _type, ...usage } = event
        this.#usage = usage
        return
      }
      case "stop":
        this.#finish(event)
        return
      case "error":
        // Warnings (a call's bad arguments, already `{}` in its end event; a skipped payload; a call the upstream
        // abandoned) leave the answer whole; other errors end it.
        if (!isErrorLevel(event)) return
        this.#fail(event)
    }
  }

  /** The events ended: a signature still waiting is written; an answer that never stopped was cut short, an error. */
  end(): void {
    if (this.#closed) return
    this.#fail({ type: "error", kind: "truncated", message: "the response ended before it was complete" })
  }

  #fail(event: StreamErrorEvent): void {
    this.#flushSignature()
    this.#closed = true
    this.#emit(
      geminiErrorBody({
        kind: errorKind(event.kind),
        message: event.message,
        ...(event.retryAfterMs === undefined ? {} : { retryAfterMs: event.retryAfterMs }),
      }),
    )
  }

  #signed(part: AnswerPart): AnswerPart {
    if (this.#pending === undefined) return part
    const out = { ...part, thoughtSignature: this.#pending }
    this.#pending = undefined
    return out
  }

  #flushSignature(): void {
    if (this.#pending !== undefined) this.#part(this.#signed({ text: "" }))
  }

  #call(event: Extract<StreamEvent, { type: "tool_call_end" }>): void {
    this.#flushSignature()
    const open = this.#calls.get(event.id)
    this.#calls.delete(event.id)
    const isObject = typeof event.input === "object" && event.input !== null && !Array.isArray(event.input)
    const functionCall: Record<string, unknown> = {}
    if (event.id !== `${this.#id}_${this.#callCount}`) functionCall.id = event.id
    functionCall.name = open?.name ?? ""
    functionCall.args = isObject ? event.input : {}
    this.#callCount++
    this.#part(event.signature ? { functionCall, thoughtSignature: event.signature } : { functionCall })
  }

  #finish(event: Extract<StreamEvent, { type: "stop" }>): void {
    const last = this.#pending === undefined ? { text: "" } : this.#signed({ text: "" })
    const finishReason =
      event.raw !== undefined && FINISH_REASONS.has(event.raw) && event.reason !== "end"
        ? event.raw
        : FINISH[event.reason]
    const extra: Record<string, unknown> = { finishReason }
    if (event.message) extra.finishMessage = event.message
    this.#emit(this.#chunk([last], extra))
    this.#closed = true
  }

  #part(part: AnswerPart): void {
    this.#emit(this.#chunk([part], {}))
  }

  #chunk(parts: AnswerPart[], extra: Record<string, unknown>): Record<string, unknown> {
    const chunk: Record<string, unknown> = {
      candidates: [{ content: { parts, role: "model" }, index: 0, ...extra }],
    }
    if (this.#usage) chunk.usageMetadata = usageMetadata(this.#usage)
    chunk.modelVersion = this.#model
    chunk.responseId = this.#id
    return chunk
  }
}

/** The error kind an error event is written with: stream problems (a cut, a bad payload) are server failures. */
function errorKind(kind: Extract<StreamEvent, { type: "error" }>["kind"]) {
  switch (kind) {
    case "context-overflow":
    case "rate-limit":
    case "quota":
    case "auth":
    case "invalid-request":
    case "server":
      return kind
    default:
      return "overloaded" as const
  }
}
