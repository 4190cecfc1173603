/**
 * One HTTP request through the gateway: reading the client's body within the limit, answering errors in the
 * client's shape, knowing when the client went away, and building the record once the answer ended.
 */
import type { IncomingMessage, ServerResponse } from "node:http"
import { ProviderError } from "../providers/errors.js"
import type { SpokenFormat } from "../providers/formats.js"
import type { ErrorInput } from "../providers/types.js"
import { errorAnswer, errorInputOf, GatewayError } from "./errors.js"
import type { GatewayRecord, RecordedBody } from "./record.js"
import type { GatewayMode, Upstream } from "./routing.js"
import { clientKey, redactDeep, redactHeaders, redactText, redactUrl } from "./secrets.js"

/** Response headers that belong to one connection, never forwarded (RFC 9110 §7.6.1, plus the framing ones). */
export const HOP_BY_HOP: ReadonlySet<string> = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "content-length",
  "host",
])

/** A request's target as a URL; undefined when it cannot be read as one (an absolute form such as `http://[::1`). */
export function requestTarget(target: string | undefined): URL | undefined {
  try {
    return new URL(target ?? "/", "http://gateway.invalid")
  } catch {
    return undefined
  }
}

/** The state of one request, filled in as it travels. */
export class Exchange {
  /** Aborted when the client goes away before its answer ended. */
  readonly abort = new AbortController()
  clientFormat: SpokenFormat
  model = ""
  upstream?: GatewayRecord["upstream"]
  mode?: GatewayMode
  usage?: GatewayRecord["usage"]
  stop?: string
  error?: GatewayRecord["error"]
  dropped: string[] = []
  conversationKey?: string
  /** Works the conversation key out when the record is built (same-format mode: off the answer's path). */
  conversationKeyLater?: () => string | undefined
  body: unknown
  sent?: RecordedBody
  firstByteAt?: number
  /** Extra headers for a successful answer, asked just before its headers go out (set by the gateway). */
  answerHeaders?: (early: GatewayRecord) => Record<string, string> | Promise<Record<string, string>>
  /** Secrets to keep out of the record and of the errors the client is told: the client's own credential first. */
  readonly secrets: (string | undefined)[] = []

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly url: URL,
    readonly seq: number,
    readonly startedAt: number,
    readonly clock: () => number,
    format: SpokenFormat,
  ) {
    this.clientFormat = format
    this.secrets.push(clientKey(req.headers, url.searchParams))
    res.on("close", () => {
      if (!res.writableFinished) this.abort.abort(new ProviderError("network", "the client went away"))
    })
    // A write the socket refuses (the client went away) is already known from `close`; unheard, it would end the process.
    res.on("error", () => {})
  }

  /** Whether the answer's first byte was sent (after which no retry and no change of status is possible). */
  get started(): boolean {
    return this.res.headersSent
  }

  /** The extra headers of a successful answer, from what is known before it (no usage yet). */
  async extraHeaders(): Promise<Record<string, string>> {
    // The snapshot costs a record; built only when someone asks.
    return this.answerHeaders ? await this.answerHeaders(this.record()) : {}
  }

  /** Marks the first byte sent. */
  markFirstByte(): void {
    this.firstByteAt ??= this.clock()
  }

  /**
   * Reads the body, refusing more than `limit` bytes (413) or a body still incomplete `timeoutMs` after the headers
   * (408), each thrown as a GatewayError the client gets in its shape. A refused body is still read to its end and
   * dropped, so a client that sends all of it before reading sees the answer instead of a reset connection
   * (Node's request timeout bounds how long that may take).
   */
  async readBody(limit: number, timeoutMs: number): Promise<Buffer> {
    const declared = Number(this.req.headers["content-length"])
    const tooLarge = () =>
      new GatewayError(
        { kind: "invalid-request", message: `the request body is larger than the gateway's limit of ${limit} bytes` },
        413,
      )
    if (Number.isFinite(declared) && declared > limit) throw tooLarge()
    // Events rather than an async iterator: this is on every request's path, and a small body is one chunk.
    return new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = []
      let size = 0
      let settled = false
      const { req } = this
      const refuse = (error: Error) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        req.off("data", onData)
        req.resume()
        reject(error)
      }
      const late = new GatewayError(
        {
          kind: "invalid-request",
          message: `the request body did not arrive within ${timeoutMs} ms of its headers (the gateway's bodyTimeoutMs)`,
        },
        408,
      )
      // Bytes that arrived while the process was busy are read first (the check phase follows the poll phase), so
      // only a body that truly is late is refused.
      const timer = setTimeout(() => setImmediate(() => refuse(late)), timeoutMs)
      const onData = (chunk: Buffer) => {
        size += chunk.length
        if (size <= limit) return void chunks.push(chunk)
        refuse(tooLarge())
      }
      req.on("data", onData)
      req.once("end", () => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks))
      })
      req.once("error", (error) => refuse(error))
      req.once("close", () => {
        if (!req.complete) refuse(new ProviderError("network", "the client went away while sending its request"))
      })
    })
  }

  /** Answers an error in the client's shape (when nothing was sent yet; otherwise the connection is cut). */
  fail(input: ErrorInput, status?: number): void {
    const safe = { ...input, message: redactText(input.message, this.secrets) }
    this.error = { kind: safe.kind, message: safe.message }
    if (this.res.headersSent) {
      this.res.destroy()
      return
    }
    const answer = errorAnswer(this.clientFormat, safe, status)
    const text = JSON.stringify(answer.body)
    // A body that did not arrive in time leaves the connection mid-request: it cannot carry another one.
    const close = status === 408 ? { connection: "close" } : {}
    this.res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers, ...close })
    this.res.end(text)
  }

  /** Answers a thrown error in the client's shape (see errorInputOf). */
  failWith(error: unknown): void {
    const { input, status } = errorInputOf(error)
    this.fail(input, status)
  }

  /** Records where the request goes. */
  routeTo(upstream: Upstream, model: string, mode: GatewayMode): void {
    this.upstream = { name: upstream.name, provider: upstream.provider, format: upstream.format, model }
    this.mode = mode
  }

  /** The record of the finished exchange. */
  record(transport: GatewayRecord["transport"] = "http"): GatewayRecord {
    const end = this.clock()
    const record: GatewayRecord = {
      seq: this.seq,
      startedAt: this.startedAt,
      latencyMs: Math.max(0, end - this.startedAt),
      clientFormat: this.clientFormat,
      transport,
      model: this.model,
      status: this.res.statusCode,
      dropped: this.dropped,
      conversationKey: this.#conversationKey(),
      received: {
        url: redactUrl(`${this.url.pathname}${this.url.search}`),
        headers: redactHeaders(this.req.headers),
        body: this.body,
      },
    }
    if (this.firstByteAt !== undefined) record.firstByteMs = Math.max(0, this.firstByteAt - this.startedAt)
    if (this.upstream) record.upstream = this.upstream
    if (this.mode) record.mode = this.mode
    if (this.usage) record.usage = this.usage
    if (this.stop) record.stop = this.stop
    if (this.error) record.error = this.error
    if (this.sent) record.sent = this.sent
    // Credentials are out of the record before anyone sees it: the log line, the span and the traces are made of it.
    return redactDeep(record, this.secrets)
  }

  #conversationKey(): string {
    if (this.conversationKey === undefined && this.conversationKeyLater) {
      this.conversationKey = this.conversationKeyLater()
      this.conversationKeyLater = undefined
    }
    return this.conversationKey ?? ""
  }
}
