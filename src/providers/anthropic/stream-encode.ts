/**
 * Normalized stream events written as the Messages API streams its answer: `message_start` (with the usage
 * known so far, or the caller's count of the input when none is), each content block as `content_block_start` / `content_block_delta`s / `content_block_stop`,
 * one `ping` after the first block starts, `message_delta` with the stop reason and the final usage, and
 * `message_stop`. An error-level error becomes an `error` event, after which the API sends nothing more.
 */
import { isErrorLevel } from "../completeness.js"
import type { AppliedContextEdit, StreamEvent, Usage } from "../stream.js"
import type { StreamEncodeOptions, StreamEncoder } from "../types.js"
import { appliedEditsToWire, compactionToWire } from "./context-edits.js"
import { anthropicErrorType } from "./errors.js"
import { stopToAnthropic } from "./stop-reasons.js"
import { toolSearchToWire } from "./tool-search-blocks.js"

/** One event of an Anthropic stream: its payload (whose `type` is also the SSE event name). */
export type AnthropicStreamPayload = { type: string } & Record<string, unknown>

/** One server-sent event as the API frames it: the event name, then the JSON payload. */
export function frameAnthropicEvent(payload: AnthropicStreamPayload): string {
  return `event: ${payload.type}\ndata: ${JSON.stringify(payload)}\n\n`
}

/** A response id derived from the model name (FNV-1a), for callers that supply none: no clock, no randomness. */
export function derivedMessageId(model: string): string {
  let hash = 0x811c9dc5
  for (let i = 0; i < model.length; i++) hash = Math.imul(hash ^ model.charCodeAt(i), 0x01000193) >>> 0
  return `msg_promptline_${hash.toString(16).padStart(8, "0")}`
}

type OpenBlock =
  | { kind: "text" | "thinking"; index: number; eventIndex: number | undefined }
  | {
      kind: "tool"
      index: number
      id: string
      /** Argument pieces were written. */
      args: boolean
      ended: boolean
      /** The argument text so far, and whether it was held back because it cannot be a JSON object. */
      text: string
      held: boolean
    }

/**
 * Turns normalized events into the payloads of one Anthropic stream. Blocks are written one after another, as
 * the API does: events of a tool call other than the open one wait until the open call ends.
 */
export class AnthropicStreamWriter {
  readonly #options: StreamEncodeOptions
  #id: string | undefined
  #model: string
  #usage: Usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }
  /** A usage event arrived (until then the input is the caller's count, when it gave one). */
  #usageSeen = false
  #started = false
  #done = false
  #pinged = false
  #blocks = 0
  #open: OpenBlock | undefined
  /** Events that belong after the open tool call (another call, text, thinking), in arrival order. */
  #waiting: StreamEvent[] = []
  /** Context-management edits to report in the closing message_delta. */
  #edits: AppliedContextEdit[] = []

  constructor(options: StreamEncodeOptions) {
    this.#options = options
    this.#id = options.id
    this.#model = options.model
  }

  /** The payloads one event adds (possibly none). */
  push(event: StreamEvent): AnthropicStreamPayload[] {
    const out: AnthropicStreamPayload[] = []
    this.#push(event, out)
    return out
  }

  /** The payloads that close the stream when no stop event came: the stream was cut short, said as an error. */
  end(): AnthropicStreamPayload[] {
    const out: AnthropicStreamPayload[] = []
    if (!this.#done) this.#error("api_error", "the response ended before it was complete", out)
    return out
  }

  #push(event: StreamEvent, out: AnthropicStreamPayload[]): void {
    if (this.#done) return
    switch (event.type) {
      case "start":
        // The id and model of the response, unless the caller fixed them; a restart after blocks is not expressible.
        if (!this.#started) {
          this.#id = this.#options.id ?? event.id
          this.#model = this.#options.model || (event.model ?? "")
        }
        return
      case "usage":
        this.#usageSeen = true
        this.#usage = {
          input: event.input,
          output: event.output,
          cacheRead: event.cacheRead,
          cacheWrite: event.cacheWrite,
          ...(event.reasoning === undefined ? {} : { reasoning: event.reasoning }),
        }
        return
      case "error":
        // Warnings (arguments that are not JSON, a skipped payload) are the reader's notes, not the provider's words.
        if (!isErrorLevel(event)) return
        this.#error(anthropicErrorType(event.kind, event.message), event.message, out)
        return
      case "stop":
        this.#stop(event, out)
        return
      case "context_edits":
        this.#edits.push(...event.edits)
        return
    }
    this.#content(event, out)
  }

  #content(event: StreamEvent, out: AnthropicStreamPayload[]): void {
    const open = this.#open
    if (open?.kind === "tool" && !open.ended && !this.#belongsTo(event, open.id)) {
      this.#waiting.push(event)
      return
    }
    this.#start(out)
    switch (event.type) {
      case "text":
      case "thinking": {
        const same =
          open?.kind === event.type &&
          (event.index === undefined || open.eventIndex === event.index || open.eventIndex === undefined)
        if (!same) {
          const block =
            event.type === "text" ? { type: "text", text: "" } : { type: "thinking", thinking: "", signature: "" }
          this.#openBlock({ kind: event.type, index: this.#blocks, eventIndex: event.index }, block, out)
        }
        const index = this.#open!.index
        if (event.type === "text") this.#delta(index, { type: "text_delta", text: event.delta }, out)
        else {
          if (event.delta !== "" || event.signature === undefined)
            this.#delta(index, { type: "thinking_delta", thinking: event.delta }, out)
          if (event.signature !== undefined)
            this.#delta(index, { type: "signature_delta", signature: event.signature }, out)
        }
        return
      }
      case "redacted_thinking":
        this.#openBlock(undefined, { type: "redacted_thinking", data: event.data }, out)
        return
      case "compaction": {
        // Opened empty, the summary and opaque fields in one compaction_delta, as the API streams it.
        const { type: _, content, ...opaque } = compactionToWire({ ...event, type: "compaction" })
        this.#openBlock({ kind: "text", index: this.#blocks, eventIndex: -1 }, { type: "compaction", content: "" }, out)
        this.#delta(this.#open!.index, { type: "compaction_delta", content, ...opaque }, out)
        this.#closeBlock(out)
        return
      }
      case "tool_search": {
        // As the API streams a server tool: the call opened empty, its input in one piece, then the result whole.
        const [use, result] = toolSearchToWire(event)
        this.#openBlock({ kind: "text", index: this.#blocks, eventIndex: -1 }, { ...use, input: {} }, out)
        this.#delta(this.#open!.index, { type: "input_json_delta", partial_json: JSON.stringify(use.input) }, out)
        this.#closeBlock(out)
        this.#openBlock(undefined, { ...result }, out)
        return
      }
      case "tool_call_start":
        this.#openBlock(
          { kind: "tool", index: this.#blocks, id: event.id, args: false, ended: false, text: "", held: false },
          { type: "tool_use", id: event.id, name: event.name, input: {} },
          out,
        )
        // The API opens every tool_use block's arguments with an empty piece.
        this.#delta(this.#open!.index, { type: "input_json_delta", partial_json: "" }, out)
        return
      case "tool_call_delta":
        if (open?.kind !== "tool" || open.id !== event.id) return
        open.text += event.argsDelta
        // Arguments that cannot be a JSON object (a model's raw text) are held back: the SDK refuses them (the API
        // never sends them), and the call's input goes whole at its end, as in a whole answer.
        open.held ||= !/^\s*(\{|$)/.test(open.text)
        if (open.held) return
        open.args = true
        this.#delta(open.index, { type: "input_json_delta", partial_json: event.argsDelta }, out)
        return
      case "tool_call_end":
        if (open?.kind !== "tool" || open.id !== event.id) return
        // A call whose arguments never streamed (a whole-answer upstream), or were held back, sends them in one piece.
        if (!open.args || open.held)
          this.#delta(open.index, { type: "input_json_delta", partial_json: JSON.stringify(event.input ?? {}) }, out)
        open.ended = true
        this.#closeBlock(out)
        this.#flushWaiting(out)
        return
    }
  }

  #belongsTo(event: StreamEvent, id: string): boolean {
    return (event.type === "tool_call_delta" || event.type === "tool_call_end") && event.id === id
  }

  #flushWaiting(out: AnthropicStreamPayload[]): void {
    const waiting = this.#waiting
    this.#waiting = []
    for (const event of waiting) this.#push(event, out)
  }

  #start(out: AnthropicStreamPayload[]): void {
    if (this.#started) return
    this.#started = true
    this.#id ??= derivedMessageId(this.#model)
    out.push({
      type: "message_start",
      message: {
        id: this.#id,
        type: "message",
        role: "assistant",
        model: this.#model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...this.#usageFields(), output_tokens: this.#usage.output },
      },
    })
  }

  #openBlock(open: OpenBlock | undefined, block: Record<string, unknown>, out: AnthropicStreamPayload[]): void {
    this.#closeBlock(out)
    const index = this.#blocks++
    out.push({ type: "content_block_start", index, content_block: block })
    this.#ping(out)
    this.#open = open
    if (open === undefined) out.push({ type: "content_block_stop", index })
  }

  #ping(out: AnthropicStreamPayload[]): void {
    if (this.#pinged) return
    this.#pinged = true
    out.push({ type: "ping" })
  }

  #delta(index: number, delta: Record<string, unknown>, out: AnthropicStreamPayload[]): void {
    out.push({ type: "content_block_delta", index, delta })
  }

  #closeBlock(out: AnthropicStreamPayload[]): void {
    if (this.#open === undefined) return
    out.push({ type: "content_block_stop", index: this.#open.index })
    this.#open = undefined
  }

  #stop(event: Extract<StreamEvent, { type: "stop" }>, out: AnthropicStreamPayload[]): void {
    if (event.reason === "error") {
      this.#error("api_error", event.message ?? "the response failed", out)
      return
    }
    // A call still open ends here (its arguments are what arrived), then whatever waited for it, which may be
    // another call that never ended; each round closes one call, so this ends.
    while (this.#open !== undefined || this.#waiting.length > 0) {
      const open = this.#open
      if (open?.kind === "tool") open.ended = true
      this.#closeBlock(out)
      this.#flushWaiting(out)
    }
    this.#start(out)
    this.#ping(out)
    const delta: Record<string, unknown> = {
      stop_reason: stopToAnthropic(event.reason, event.raw),
      stop_sequence: null,
    }
    if (event.reason === "refusal" && event.message !== undefined)
      delta.stop_details = { type: "refusal", explanation: event.message }
    const usage: Record<string, unknown> = { ...this.#usageFields(), output_tokens: this.#usage.output }
    if (this.#usage.reasoning !== undefined && this.#usage.reasoning > 0)
      usage.output_tokens_details = { thinking_tokens: this.#usage.reasoning }
    const payload: AnthropicStreamPayload = { type: "message_delta", delta, usage }
    if (this.#edits.length > 0) payload.context_management = appliedEditsToWire(this.#edits)
    out.push(payload)
    out.push({ type: "message_stop" })
    this.#done = true
  }

  /** The in-stream error event; the API sends nothing after it. */
  #error(type: string, message: string, out: AnthropicStreamPayload[]): void {
    // A message that came from an Anthropic error already starts with its type (`overloaded_error: …`).
    const prefix = `${type}: `
    const text = message.startsWith(prefix) ? message.slice(prefix.length) : message
    out.push({ type: "error", error: { type, message: text } })
    this.#done = true
  }

  /** The input figures: the upstream's once reported, else the caller's count of the prompt (no cache split known). */
  #usageFields() {
    const u = this.#usage
    const input = this.#usageSeen ? u.input : (this.#options.inputTokens ?? u.input)
    return { input_tokens: input, cache_creation_input_tokens: u.cacheWrite, cache_read_input_tokens: u.cacheRead }
  }
}

/** A stream encoder writing the Messages API's server-sent events. */
export function createAnthropicStreamEncoder(options: StreamEncodeOptions): StreamEncoder {
  const writer = new AnthropicStreamWriter(options)
  const frame = (payloads: AnthropicStreamPayload[]) => payloads.map(frameAnthropicEvent).join("")
  return { push: (event) => frame(writer.push(event)), end: () => frame(writer.end()) }
}
