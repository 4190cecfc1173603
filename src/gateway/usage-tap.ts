/**
 * A copy of an answer decoded on the side while its bytes are forwarded unchanged: the usage, stop reason and
 * error the log line, the record and the span report. A server-sent-event stream is decoded when its record is
 * built (a long one also every 64 KB on its way); a JSON body (a whole answer, or Gemini's streamed JSON array)
 * once it ended.
 */
import type { WireFormat } from "../models/types.js"
import { StreamDecoder } from "../providers/decode.js"
import { formatModule } from "../providers/formats.js"
import type { DecodeOptions, StreamEvent } from "../providers/stream.js"
import { type AnswerFacts, withEvents } from "./outcome.js"

/** How many bytes of a stream's copy wait before they are decoded while the stream goes on. */
const DECODE_BATCH = 64 * 1024

/** The largest JSON answer kept for decoding (bigger ones are forwarded without usage). */
const JSON_KEEP_LIMIT = 64 * 1024 * 1024

/** Reads a copy of an answer's bytes. */
export class UsageTap {
  #facts: AnswerFacts = {}
  /** Whether the answer is a server-sent-event stream. */
  readonly #streamed: boolean
  /** Its decoder, made when the first chunks are decoded (after the answer's first bytes left). */
  #sse: StreamDecoder | undefined
  readonly #chunks: Buffer[] = []
  #kept = 0
  #events: StreamEvent[] = []
  /** A stream's chunks not decoded yet, and the decoding to come. */
  #waiting: Buffer[] = []
  #waitingBytes = 0
  #ended = false
  #decodeLater: NodeJS.Immediate | undefined
  /** The side decoder failed on the answer: the rest is forwarded unread (the record goes without what follows). */
  #broken = false

  /**
   * `sent`: the request's body as it went upstream (what the decoder expects of the answer depends on it);
   * `begun`: a stream's decoder that read its first chunks already, with their events (a held start's).
   */
  constructor(
    private readonly format: WireFormat,
    contentType: string,
    private readonly sent: unknown,
    begun?: { decoder: StreamDecoder; events: StreamEvent[] },
  ) {
    this.#streamed = /event-stream/i.test(contentType)
    if (begun) {
      this.#sse = begun.decoder
      this.#events = begun.events
    }
  }

  /** What the answer's decoder expects, from the request as sent. */
  get #options(): DecodeOptions {
    return formatModule(this.format).decodeOptions(this.sent)
  }

  /**
   * The next chunk of the answer. Never throws: the copy is read for the record only, never at the answer's cost.
   * A stream's chunks wait, and are decoded by `end` (which the record calls, after the answer's turn); a long
   * stream's are decoded each time 64 KB waits, once the I/O at hand was served (on setImmediate), so a long
   * answer's copy is not held whole and the client's bytes still leave first.
   */
  feed(chunk: Buffer): void {
    if (this.#broken) return
    if (this.#streamed) {
      this.#waiting.push(chunk)
      this.#waitingBytes += chunk.length
      if (this.#waitingBytes >= DECODE_BATCH) this.#decodeLater ??= setImmediate(() => this.#decodeWaiting())
    } else if (this.#kept + chunk.length <= JSON_KEEP_LIMIT) {
      this.#chunks.push(chunk)
      this.#kept += chunk.length
    }
  }

  /** The answer ended (or was cut, with `cut`); what it reported. Asked again, the same facts. */
  end(cut?: string): AnswerFacts {
    if (this.#ended) return this.#facts
    this.#ended = true
    this.#decodeWaiting()
    try {
      if (this.#broken) this.#events = []
      else if (this.#streamed) {
        this.#sse ??= new StreamDecoder(this.format, this.#options)
        if (cut) this.#sse.fail({ type: "error", kind: "network", message: cut }, this.#events)
        else this.#sse.end(this.#events)
      } else if (!cut && this.#chunks.length > 0)
        this.#events = this.#json(Buffer.concat(this.#chunks).toString("utf8"))
    } catch {
      this.#events = []
    }
    this.#take()
    if (cut && !this.#facts.error) this.#facts = { ...this.#facts, error: { kind: "network", message: cut } }
    return this.#facts
  }

  /** Decodes the stream's chunks that wait, in order. */
  #decodeWaiting(): void {
    if (this.#decodeLater !== undefined) clearImmediate(this.#decodeLater)
    this.#decodeLater = undefined
    const chunks = this.#waiting
    if (chunks.length === 0) return
    this.#waiting = []
    this.#waitingBytes = 0
    for (const chunk of chunks) {
      if (this.#broken) return
      try {
        this.#sse ??= new StreamDecoder(this.format, this.#options)
        this.#sse.feed(chunk, this.#events)
      } catch {
        this.#broken = true
      }
      this.#take()
    }
  }

  #json(text: string): StreamEvent[] {
    const module = formatModule(this.format)
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      return []
    }
    if (!Array.isArray(parsed)) return module.responseEvents(parsed)
    const decoder = module.createDecoder(this.#options)
    const out: StreamEvent[] = []
    for (const payload of parsed) decoder.push(payload, out)
    decoder.end(out)
    return out
  }

  #take(): void {
    if (this.#events.length === 0) return
    this.#facts = withEvents(this.#facts, this.#events)
    this.#events = []
  }
}
