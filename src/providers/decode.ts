/** The response side of the wire layer: bytes or bodies of any wire format to stream events. */
import type { WireFormat } from "../models/types.js"
import { type AccumulateOptions, Accumulator, type AssembledResponse } from "./accumulate.js"
import { formatModule } from "./formats.js"
import { SseFramer } from "./sse.js"
import type { DecodeOptions, DecodeStats, PayloadDecoder, StreamEvent } from "./stream.js"
import type { WireFormatModule } from "./types.js"

/** A wire format by name, or a format module (one not in the table, e.g. in a test). */
export type FormatRef = WireFormat | WireFormatModule

/** A fresh payload decoder for one response body of `format`. */
export function createPayloadDecoder(format: FormatRef, options: DecodeOptions = {}): PayloadDecoder {
  return formatModule(format).createDecoder(options)
}

/** What the decoder of the answer to an encoded request body must know (whether a usage chunk was asked for). */
export function decodeOptionsFor(format: FormatRef, body: unknown): DecodeOptions {
  return formatModule(format).decodeOptions(body)
}

/** The events a non-streaming response body of `format` stands for (the same a stream would give). */
export function responseBodyEvents(format: FormatRef, body: unknown): StreamEvent[] {
  return formatModule(format).responseEvents(body)
}

/**
 * An incremental decoder from raw SSE bytes to stream events: feed chunks as they arrive, then
 * call `end()`. The result does not depend on how the bytes were split.
 */
export class StreamDecoder {
  readonly #payloads: PayloadDecoder
  readonly #framer: SseFramer
  #out: StreamEvent[] = []

  constructor(format: FormatRef, options: DecodeOptions = {}) {
    this.#payloads = createPayloadDecoder(format, options)
    this.#framer = new SseFramer((message) => {
      const data = message.data
      if (data === "") return
      if (this.#payloads.pushData?.(data, this.#out)) return
      let payload: unknown
      try {
        payload = JSON.parse(data)
      } catch {
        this.#payloads.pushRaw(data, this.#out)
        return
      }
      this.#payloads.push(payload, this.#out, message.event)
    })
  }

  /** Decodes the next chunk of the body; appends the events it completes to `out`. */
  feed(chunk: Uint8Array, out: StreamEvent[]): void {
    this.#out = out
    this.#framer.feed(chunk)
  }

  /** The body ended; appends the final events (usage, stop, or the truncation error) to `out`. */
  end(out: StreamEvent[]): void {
    this.#out = out
    this.#framer.end()
    this.#payloads.end(out)
  }

  /** Reading the body failed: the complete lines received are decoded, then the response ends with `error` unless it already had. */
  fail(error: Extract<StreamEvent, { type: "error" }>, out: StreamEvent[]): void {
    this.#out = out
    this.#framer.end()
    this.#payloads.fail(error, out)
  }

  /** Counters so far, SSE-level ones included. */
  get stats(): DecodeStats {
    return { ...this.#payloads.stats, bytes: this.#framer.bytes, comments: this.#framer.comments }
  }
}

/** A decoded body: iterate it for the events; `stats` holds the counters once iteration ended. */
export class DecodedStream implements AsyncIterable<StreamEvent> {
  readonly #decoder: StreamDecoder
  readonly #body: AsyncIterable<Uint8Array>

  constructor(format: FormatRef, body: AsyncIterable<Uint8Array>, options: DecodeOptions = {}) {
    this.#decoder = new StreamDecoder(format, options)
    this.#body = body
  }

  get stats(): DecodeStats {
    return this.#decoder.stats
  }

  /** The events in batches, one batch per network chunk (cheaper than one await per event). */
  async *batches(): AsyncGenerator<StreamEvent[]> {
    const chunks = this.#body[Symbol.asyncIterator]()
    let done = false
    try {
      for (;;) {
        let next: IteratorResult<Uint8Array>
        try {
          next = await chunks.next()
        } catch (error) {
          // The connection failed mid-body: report it, keep what arrived, and close the response.
          done = true
          const reason = error instanceof Error ? error.message : String(error)
          const out: StreamEvent[] = []
          this.#decoder.fail({ type: "error", kind: "network", message: `the connection failed: ${reason}` }, out)
          yield out
          return
        }
        if (next.done) break
        const out: StreamEvent[] = []
        this.#decoder.feed(next.value, out)
        if (out.length > 0) yield out
      }
      done = true
      const out: StreamEvent[] = []
      this.#decoder.end(out)
      if (out.length > 0) yield out
    } finally {
      // The consumer stopped early: release the body (cancels the request).
      if (!done) await chunks.return?.()
    }
  }

  async *[Symbol.asyncIterator](): AsyncIterator<StreamEvent> {
    for await (const batch of this.batches()) yield* batch
  }
}

/** Decodes a streamed response body (a fetch body, a file stream) of `format` into stream events. */
export function decodeStream(
  format: FormatRef,
  body: AsyncIterable<Uint8Array>,
  options: DecodeOptions = {},
): DecodedStream {
  return new DecodedStream(format, body, options)
}

/** Decodes a streamed body and assembles the response: message, usage, stop reason, errors, counters. */
export async function decodeResponse(
  format: FormatRef,
  body: AsyncIterable<Uint8Array>,
  options: AccumulateOptions & DecodeOptions,
): Promise<AssembledResponse> {
  const all = await decodeResponses(format, body, options)
  return all[all.length - 1]!
}

/** Like decodeResponse, for bodies that hold several responses back to back (recordings). */
export async function decodeResponses(
  format: FormatRef,
  body: AsyncIterable<Uint8Array>,
  options: AccumulateOptions & DecodeOptions,
): Promise<AssembledResponse[]> {
  const stream = decodeStream(format, body, { expectUsage: options.expectUsage })
  const acc = new Accumulator(options)
  for await (const batch of stream.batches()) for (const event of batch) acc.push(event)
  const stats = stream.stats
  return acc.finish().map((r) => ({ ...r, stats }))
}

/** Decodes payloads given one JSON document per line (the recorded-stream format); bad lines are reported. */
export function decodePayloadLines(
  format: FormatRef,
  text: string,
  options: DecodeOptions = {},
): { events: StreamEvent[]; stats: DecodeStats } {
  const decoder = createPayloadDecoder(format, options)
  const events: StreamEvent[] = []
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === "") continue
    if (decoder.pushData?.(line, events)) continue
    let payload: unknown
    try {
      payload = JSON.parse(line)
    } catch {
      decoder.pushRaw(line, events)
      continue
    }
    decoder.push(payload, events)
  }
  decoder.end(events)
  return { events, stats: decoder.stats }
}

/** How a recording is written: raw SSE, one JSON payload per line, or one whole (non-streamed) JSON body. */
export type RecordingShape = "sse" | "json-lines" | "json"

/** Guesses the shape of a recording from its text. */
export function recordingShape(text: string): RecordingShape {
  const first = text.replace(/^\uFEFF/, "").trimStart()
  if (/^(data|event|id|retry)\s*:/.test(first) || first.startsWith(":")) return "sse"
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== "")
  const parses = (s: string) => {
    try {
      JSON.parse(s)
      return true
    } catch {
      return false
    }
  }
  if (lines.length > 0 && lines.every(parses)) {
    if (lines.length === 1 && !isStreamPayload(JSON.parse(lines[0]!))) return "json"
    return "json-lines"
  }
  // A pretty-printed body parses only as a whole; otherwise lines that fail are reported one by one.
  return parses(text) ? "json" : "json-lines"
}

/** Whether a JSON object looks like one streamed payload rather than a whole response body. */
function isStreamPayload(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false
  const v = value as Record<string, unknown>
  if (typeof v.type === "string" && (v.type.includes("_") || v.type.includes("."))) return true
  return v.object === "chat.completion.chunk"
}
