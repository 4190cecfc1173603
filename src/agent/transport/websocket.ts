import type { IncomingMessage } from "node:http"
import type WebSocket from "ws"
import { PromptlineError } from "../../errors.js"
import { lazyModule } from "../../lazy-module.js"
import { type Endpoint, EndpointError, responsesSocketUrl } from "../../providers/endpoints.js"
import { classifyHttpError, classifyStreamError, networkError, ProviderError } from "../../providers/errors.js"
import { credentialsOf, redactText } from "../../redact.js"
import type { ProviderResponse } from "./response.js"
import { type RetryInfo, type RetryOptions, retryAfterInMessage, withRetry } from "./retry.js"
import { type FirstFrame, SocketResponse } from "./socket-response.js"

/** ws, required on the first connection. */
const wsModule = lazyModule<typeof WebSocket>("ws")

/** Options of a ResponsesSocket. */
export interface ResponsesSocketOptions {
  /** Default: `wss://…/responses` under the endpoint's base URL. */
  url?: string
  /** Backoff policy, randomness and sleep for failures before an answer starts. */
  retry?: RetryOptions
  /** Hears of each retry (attempt, delay, error). */
  onRetry?: (info: RetryInfo) => void
  /** A connection older than this is replaced before the next request (default 55 min; OpenAI closes at 60). */
  maxAgeMs?: number
  /** How long the opening handshake may take (default 30 s). */
  connectTimeoutMs?: number
  /** The clock for connection age (default Date.now). */
  now?: () => number
}

/** Per-request options of `ResponsesSocket.send`. */
export interface SocketSendOptions {
  /** Cancels the request: closes the connection (the next request opens a new one). */
  signal?: AbortSignal
  /** Hears of each retry of this request; default: the socket's onRetry. */
  onRetry?: (info: RetryInfo) => void
}

/** The socket is still streaming an answer; OpenAI serves one response at a time per connection. */
export class SocketBusyError extends PromptlineError {
  constructor() {
    super("socket-busy", "a response is still streaming on this WebSocket; read it to the end before the next request")
  }
}

interface Connection {
  ws: WebSocket
  openedAt: number
}

const DEFAULT_MAX_AGE_MS = 55 * 60_000
/** OpenAI's error code when a connection reached its time limit: open a new one and go on. */
const CONNECTION_LIMIT = "websocket_connection_limit_reached"

/**
 * The OpenAI Responses API over one WebSocket kept open across turns. The connection opens lazily
 * on the first request; each `send` writes one `response.create` (the create body without its
 * transport fields) and returns the answer's stream events. A connection found dropped, or one that
 * drops before answering, is reopened once and the request sent again; errors before an answer
 * starts are ProviderErrors, retried like HTTP ones when retryable.
 */
export class ResponsesSocket {
  readonly #endpoint: Endpoint
  readonly #options: ResponsesSocketOptions
  readonly #url: string
  #conn: Connection | undefined
  #active: SocketResponse | undefined
  /** The connection the active response travels on. */
  #activeConn: Connection | undefined
  #opened = 0
  /** A request is being sent or its answer is still arriving. */
  #busy = false

  constructor(endpoint: Endpoint, options: ResponsesSocketOptions = {}) {
    if (endpoint.format !== "openai-responses") {
      throw new EndpointError(
        "unsupported-format",
        `the Responses WebSocket needs an openai-responses endpoint, not ${endpoint.format}`,
      )
    }
    this.#endpoint = endpoint
    this.#options = options
    this.#url = options.url ?? responsesSocketUrl(endpoint)
  }

  /** Connections opened so far (1 while the first one lives). */
  get connections(): number {
    return this.#opened
  }

  /** Whether a connection is open now. */
  get connected(): boolean {
    const ws = this.#conn?.ws
    return ws !== undefined && ws.readyState === ws.OPEN
  }

  /** Sends one Responses create body and returns its answer once it starts. */
  async send(body: unknown, options: SocketSendOptions = {}): Promise<ProviderResponse> {
    if (this.#busy) throw new SocketBusyError()
    this.#busy = true
    const message = JSON.stringify(responseCreateEvent(body))
    const { signal } = options
    const onRetry = options.onRetry ?? this.#options.onRetry
    try {
      const response = await withRetry((n) => this.#attempt(message, n + 1, signal), {
        ...this.#options.retry,
        ...(signal ? { signal } : {}),
        ...(onRetry ? { onRetry } : {}),
      })
      response.onEnd(() => {
        this.#busy = false
      })
      return response
    } catch (error) {
      this.#busy = false
      throw error
    }
  }

  /** Closes the connection (a later `send` opens a new one). */
  async close(): Promise<void> {
    const conn = this.#conn
    this.#conn = undefined
    if (!conn || conn.ws.readyState === conn.ws.CLOSED) return
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => conn.ws.terminate(), 1000)
      conn.ws.once("close", () => {
        clearTimeout(timer)
        resolve()
      })
      conn.ws.close(1000)
    })
  }

  async #attempt(message: string, attempts: number, signal: AbortSignal | undefined): Promise<SocketResponse> {
    let reopened = false
    for (;;) {
      const current = this.#usable() ? this.#conn : undefined
      const reused = current !== undefined
      if (!reused) this.#drop()
      const conn = current ?? (await this.#connect(signal))
      this.#conn = conn
      const response = new SocketResponse(attempts)
      this.#active = response
      this.#activeConn = conn
      const onAbort = () => {
        response.abort(signal?.reason)
        if (this.#conn === conn) this.#drop()
      }
      signal?.addEventListener("abort", onAbort, { once: true })
      const release = () => signal?.removeEventListener("abort", onAbort)
      conn.ws.send(message, (error) => {
        if (error) response.closed(error.message)
      })
      let first: FirstFrame
      try {
        first = await response.first
      } catch (error) {
        release()
        throw error
      }
      if (first.type === "frame") {
        // Released once the caller has read the answer, not when its last frame came: an abort before reading
        // throws however fast the frames arrived.
        response.onRead(release)
        return response
      }
      release()
      if (first.type === "closed") {
        if (reused && !reopened) {
          reopened = true
          continue
        }
        throw networkError(new Error(`the WebSocket closed before answering (${first.reason})`))
      }
      const error = frameError(first.payload)
      if (error.body?.includes(CONNECTION_LIMIT) && !reopened) {
        reopened = true
        this.#drop()
        continue
      }
      throw error
    }
  }

  /** The current connection is open and young enough to carry a request. */
  #usable(): boolean {
    const conn = this.#conn
    if (!conn || conn.ws.readyState !== conn.ws.OPEN) return false
    const now = (this.#options.now ?? Date.now)()
    return now - conn.openedAt < (this.#options.maxAgeMs ?? DEFAULT_MAX_AGE_MS)
  }

  /** Forgets the current connection and closes it without waiting. */
  #drop(): void {
    const conn = this.#conn
    this.#conn = undefined
    if (conn && conn.ws.readyState !== conn.ws.CLOSED) conn.ws.terminate()
  }

  #connect(signal: AbortSignal | undefined): Promise<Connection> {
    if (signal?.aborted) return Promise.reject(signal.reason)
    const { "content-type": _type, ...headers } = this.#endpoint.headers
    const ws = new (wsModule())(this.#url, {
      headers,
      handshakeTimeout: this.#options.connectTimeoutMs ?? 30_000,
    })
    const conn: Connection = { ws, openedAt: (this.#options.now ?? Date.now)() }
    ws.on("message", (data, isBinary) => {
      if (this.#conn === conn && !isBinary) this.#active?.frame(String(data))
    })
    ws.on("close", (code, reason) => {
      if (this.#conn === conn) this.#conn = undefined
      if (this.#activeConn === conn)
        this.#active?.closed(`closed with code ${code}${reason.length > 0 ? `: ${String(reason)}` : ""}`)
    })
    return new Promise<Connection>((resolve, reject) => {
      const onAbort = () => {
        ws.terminate()
        reject(signal?.reason)
      }
      signal?.addEventListener("abort", onAbort, { once: true })
      const settle = () => signal?.removeEventListener("abort", onAbort)
      ws.once("open", () => {
        settle()
        this.#opened++
        conn.openedAt = (this.#options.now ?? Date.now)()
        resolve(conn)
      })
      ws.once("unexpected-response", (request, response) => {
        readBody(response).then((body) => {
          settle()
          request.destroy()
          const told = redactText(body, credentialsOf(headers))
          reject(classifyHttpError({ status: response.statusCode ?? 0, body: told, headers: flatHeaders(response) }))
        })
      })
      ws.on("error", (error) => {
        settle()
        reject(networkError(error))
      })
    })
  }
}

/** The client event for a create body: `response.create` with the body's fields, less the HTTP-only ones. */
export function responseCreateEvent(body: unknown): Record<string, unknown> {
  const fields = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {}
  const { stream: _stream, stream_options: _options, background: _background, ...rest } = fields
  return { type: "response.create", ...rest }
}

/** A ProviderError from an error frame sent before the answer started. */
function frameError(payload: Record<string, unknown>): ProviderError {
  const status = typeof payload.status === "number" ? payload.status : undefined
  const inner = typeof payload.error === "object" && payload.error !== null ? payload.error : payload
  const detail = inner as { message?: unknown; code?: unknown; type?: unknown }
  const message = typeof detail.message === "string" ? detail.message : "the server sent an error"
  const code = [detail.code, detail.type].find((v): v is string => typeof v === "string") ?? ""
  const body = JSON.stringify({ error: inner })
  const kind = status !== undefined ? classifyHttpError({ status, body }).kind : classifyStreamError(code, message)
  const retryAfterMs = retryAfterInMessage(message)
  const text = `WebSocket error${status !== undefined ? ` ${status}` : ""}: ${code ? `${code}: ` : ""}${message}`
  return new ProviderError(kind, text, {
    ...(status !== undefined ? { status } : {}),
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    body,
  })
}

function readBody(response: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    response.on("data", (chunk: Buffer) => chunks.push(chunk))
    response.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    response.on("error", () => resolve(Buffer.concat(chunks).toString("utf8")))
  })
}

function flatHeaders(response: IncomingMessage): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {}
  for (const [key, value] of Object.entries(response.headers))
    out[key] = Array.isArray(value) ? value.join(", ") : value
  return out
}
