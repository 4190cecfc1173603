/**
 * The client's side of one HTTP request: the answer written to it (its status, its bytes, when the first byte
 * left), an error in the client's own shape when one is told, and knowing when the client went away.
 */
import type { OutgoingHttpHeaders, ServerResponse } from "node:http"
import type { SpokenFormat } from "../providers/formats.js"
import type { ErrorInput } from "../providers/types.js"
import { errorAnswer, errorInputOf } from "./errors.js"
import type { ClientSide, OutcomeError } from "./outcome.js"
import { redactText } from "./secrets.js"
import type { CancelSignal } from "./upstream.js"

/**
 * Tells the calls of one request that its client went away before its answer ended: a CancelSignal without an
 * AbortController (an EventTarget per request, which with its listeners cost 0.2-0.3x the bare proxy's CPU per
 * small request: bench/history.md).
 */
export class ClientGone implements CancelSignal {
  #aborted = false
  #listeners: (() => void)[] = []
  #controller: AbortController | undefined

  get aborted(): boolean {
    return this.#aborted
  }

  /** As an AbortSignal's: a listener added after the client went away is not called. */
  addEventListener(_type: "abort", listener: () => void): void {
    if (!this.#aborted) this.#listeners.push(listener)
  }

  removeEventListener(_type: "abort", listener: () => void): void {
    const at = this.#listeners.indexOf(listener)
    if (at >= 0) this.#listeners.splice(at, 1)
  }

  /** The same as an AbortSignal, for an API that takes only that (fetch); made when first asked for. */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      const controller = new AbortController()
      this.#controller = controller
      if (this.#aborted) controller.abort()
      else this.addEventListener("abort", () => controller.abort())
    }
    return this.#controller.signal
  }

  /** The client went away: each listener is called once, in the order they were added. */
  abort(): void {
    if (this.#aborted) return
    this.#aborted = true
    const listeners = this.#listeners
    this.#listeners = []
    for (const listener of listeners) {
      try {
        listener()
      } catch {
        // A call that could not be cancelled ends by its own timeouts; the others are still told.
      }
    }
  }
}

/** The answer to one HTTP request, as it is written. */
export class HttpReply {
  /** Aborted when the client goes away before its answer ended. */
  readonly gone = new ClientGone()
  #bytes = 0
  #firstByteAt: number | undefined
  #told: OutcomeError | undefined

  constructor(
    readonly res: ServerResponse,
    private readonly clientFormat: SpokenFormat,
    private readonly clock: () => number,
  ) {
    res.on("close", () => {
      if (!res.writableFinished) this.gone.abort()
    })
    // A write the socket refuses (the client went away) is already known from `close`; unheard, it would end the process.
    res.on("error", () => {})
  }

  /** Whether the answer's first byte was sent (after which no retry and no change of status is possible). */
  get started(): boolean {
    return this.res.headersSent
  }

  /** Writes the answer's status and headers: the first byte of the answer. */
  head(status: number, headers: OutgoingHttpHeaders): void {
    this.#firstByteAt ??= this.clock()
    this.res.writeHead(status, headers)
  }

  /** Writes part of the answer; false when the client's socket is full (wait for `drain`). */
  write(chunk: string | Buffer): boolean {
    this.#bytes += Buffer.byteLength(chunk)
    return this.res.write(chunk)
  }

  /** Ends the answer, with its last part. */
  end(chunk?: string | Buffer): void {
    if (chunk !== undefined) this.#bytes += Buffer.byteLength(chunk)
    this.res.end(chunk)
  }

  /** Cuts the connection: an answer that began cannot change its status or say more. */
  cut(): void {
    this.res.destroy()
  }

  /** Notes the error the client is told in a forwarded body of the upstream's own (same-format). */
  tell(error: OutcomeError): void {
    this.#told = { kind: error.kind, message: error.message }
  }

  /**
   * Answers an error in the client's shape, its message redacted of `secrets`, when nothing was sent yet;
   * otherwise the connection is cut.
   */
  fail(input: ErrorInput, status: number | undefined, secrets: readonly (string | undefined)[]): void {
    const safe = { ...input, message: redactText(input.message, secrets) }
    this.tell(safe)
    if (this.res.headersSent) {
      this.res.destroy()
      return
    }
    const answer = errorAnswer(this.clientFormat, safe, status)
    const text = JSON.stringify(answer.body)
    // A body that did not arrive in time leaves the connection mid-request: it cannot carry another one.
    const close = status === 408 ? { connection: "close" } : {}
    this.res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers, ...close })
    this.end(text)
  }

  /** Answers a thrown error in the client's shape (see errorInputOf). */
  failWith(error: unknown, secrets: readonly (string | undefined)[]): void {
    const { input, status } = errorInputOf(error)
    this.fail(input, status, secrets)
  }

  /** Ends an answer its pipeline left open (a failure that cut it short). */
  close(): void {
    if (!this.res.writableEnded && !this.res.destroyed) this.res.end()
  }

  /** How the answer went, as the client saw it. */
  clientSide(): ClientSide {
    const side: ClientSide = { status: this.res.statusCode, bytes: this.#bytes }
    if (this.#firstByteAt !== undefined) side.firstByteAt = this.#firstByteAt
    if (this.#told) side.told = this.#told
    return side
  }
}
