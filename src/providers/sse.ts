import type * as EventSource from "eventsource-parser"
import type { EventSourceParser } from "eventsource-parser"
import { lazyModule } from "../lazy-module.js"

/** eventsource-parser (its CommonJS build), required when the first stream is framed. */
const eventSource = lazyModule<typeof EventSource>("eventsource-parser")

/** One server-sent event: its `event:` name (when given) and its joined `data:` lines. */
export interface SseMessage {
  event?: string
  data: string
  id?: string
}

/**
 * Incremental SSE framing over raw bytes. Bytes may arrive split anywhere, including inside a
 * UTF-8 character or between CR and LF: a streaming TextDecoder joins characters, and
 * eventsource-parser joins lines and events (LF, CR and CRLF line ends, comments, BOM).
 */
export class SseFramer {
  /** Comment lines seen (`: keep-alive`). */
  comments = 0
  /** Bytes fed so far. */
  bytes = 0
  readonly #decoder = new TextDecoder("utf-8")
  readonly #parser: EventSourceParser
  #lastChar = ""

  constructor(onMessage: (message: SseMessage) => void) {
    this.#parser = eventSource().createParser({
      onEvent: (event) => onMessage(event),
      onComment: () => {
        this.comments++
      },
    })
  }

  /** Feeds the next chunk of the body. */
  feed(bytes: Uint8Array): void {
    this.bytes += bytes.byteLength
    this.feedText(this.#decoder.decode(bytes, { stream: true }))
  }

  /** Feeds already-decoded text (for callers that hold a string). */
  feedText(text: string): void {
    if (text.length === 0) return
    this.#lastChar = text[text.length - 1]!
    this.#parser.feed(text)
  }

  /**
   * The body ended. A last event whose lines are complete but lack the closing blank line is
   * delivered; a line cut off mid-way is dropped (the stream was truncated and the caller says so).
   */
  end(): void {
    const rest = this.#decoder.decode()
    if (rest) this.feedText(rest)
    if (this.#lastChar === "\n" || this.#lastChar === "\r") this.#parser.feed("\n\n")
  }
}
