import { createPayloadDecoder } from "../../providers/decode.js"
import type { DecodeStats, PayloadDecoder, StreamEvent } from "../../providers/stream.js"
import { OneShotResponse } from "./response.js"

/** How a WebSocket response began: with a frame of the response, an error frame, or a closed connection. */
export type FirstFrame =
  | { type: "frame" }
  | { type: "error"; payload: Record<string, unknown> }
  | { type: "closed"; reason: string }

/** Server events after which a Responses answer is over. */
const TERMINAL = new Set(["response.completed", "response.incomplete", "response.failed", "error"])

/**
 * One Responses answer arriving as WebSocket frames: frames are decoded as they come and queued
 * until read. `first` settles with the first frame (or the connection's end) so that an error
 * before the answer started can be thrown, and retried, like an HTTP error status.
 */
export class SocketResponse extends OneShotResponse {
  readonly format = "openai-responses" as const
  readonly status = 101
  readonly requestId: string | undefined = undefined
  /** Settles once: the first frame, or why there was none. Rejects on abort. */
  readonly first: Promise<FirstFrame>
  #settleFirst!: (first: FirstFrame) => void
  #rejectFirst!: (reason: unknown) => void
  readonly #decoder: PayloadDecoder = createPayloadDecoder("openai-responses")
  readonly #queue: StreamEvent[][] = []
  #wake: (() => void) | undefined
  #started = false
  #done = false
  #failure: { reason: unknown } | undefined
  #bytes = 0
  readonly #onEnd: (() => void)[] = []
  readonly #onRead: (() => void)[] = []

  constructor(readonly attempts: number) {
    super()
    this.first = new Promise<FirstFrame>((resolve, reject) => {
      this.#settleFirst = resolve
      this.#rejectFirst = reject
    })
    // A rejection nobody awaits (an abort after the answer started) must not surface as unhandled.
    this.first.catch(() => undefined)
  }

  /** True once the answer ended (or failed): the connection may carry the next request. */
  get done(): boolean {
    return this.#done
  }

  /** Runs `listener` once the answer has ended, however it ends (at once when it already has). */
  onEnd(listener: () => void): void {
    if (this.#done) listener()
    else this.#onEnd.push(listener)
  }

  /**
   * Runs `listener` once the caller has read the answer to its end (or reading threw). Until then an abort still
   * counts: an answer that arrived whole before the caller read it is not read after an abort.
   */
  onRead(listener: () => void): void {
    this.#onRead.push(listener)
  }

  get stats(): DecodeStats {
    return { ...this.#decoder.stats, bytes: this.#bytes }
  }

  /** Takes one text frame from the server. */
  frame(text: string): void {
    if (this.#done) return
    this.#bytes += Buffer.byteLength(text)
    let payload: unknown
    try {
      payload = JSON.parse(text)
    } catch {
      payload = undefined
    }
    const record =
      typeof payload === "object" && payload !== null && !Array.isArray(payload)
        ? (payload as Record<string, unknown>)
        : undefined
    if (!this.#started) {
      if (record?.type === "error") {
        this.#end()
        this.#settleFirst({ type: "error", payload: record })
        return
      }
      this.#started = true
      this.#settleFirst({ type: "frame" })
    }
    const out: StreamEvent[] = []
    if (record === undefined) this.#decoder.pushRaw(text, out)
    else this.#decoder.push(record, out)
    if (typeof record?.type === "string" && TERMINAL.has(record.type)) {
      this.#decoder.end(out)
      this.#end()
    }
    this.#enqueue(out)
  }

  /** The connection closed; an answer in progress ends with a network error, like a cut HTTP body. */
  closed(reason: string): void {
    if (this.#done) return
    this.#end()
    if (!this.#started) {
      this.#settleFirst({ type: "closed", reason })
      return
    }
    const out: StreamEvent[] = []
    this.#decoder.fail({ type: "error", kind: "network", message: `the connection failed: ${reason}` }, out)
    this.#enqueue(out)
  }

  /** The caller aborted: reading (or waiting for the first frame) throws `reason`. */
  abort(reason: unknown): void {
    if (this.#failure) return
    this.#failure = { reason }
    this.#end()
    this.#rejectFirst(reason)
    this.#wake?.()
  }

  protected async *produce(): AsyncGenerator<StreamEvent[]> {
    try {
      for (;;) {
        if (this.#failure) throw this.#failure.reason
        const batch = this.#queue.shift()
        if (batch) {
          yield batch
          continue
        }
        if (this.#done) return
        await new Promise<void>((resolve) => {
          this.#wake = resolve
        })
        this.#wake = undefined
      }
    } finally {
      for (const listener of this.#onRead.splice(0)) listener()
    }
  }

  #end(): void {
    if (this.#done) return
    this.#done = true
    for (const listener of this.#onEnd.splice(0)) listener()
  }

  #enqueue(batch: StreamEvent[]): void {
    if (batch.length > 0) this.#queue.push(batch)
    this.#wake?.()
  }
}
