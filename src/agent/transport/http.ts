import type { WireFormat } from "../../models/types.js"
import { decodeOptionsFor, decodeStream, responseBodyEvents } from "../../providers/decode.js"
import { type Endpoint, EndpointError, requestUrl } from "../../providers/endpoints.js"
import { classifyHttpError, networkError } from "../../providers/errors.js"
import { type DecodeOptions, type DecodeStats, emptyStats, type StreamEvent } from "../../providers/stream.js"
import { credentialsOf, redactText } from "../../redact.js"
import type { SendRequest } from "../loop.js"
import { OneShotResponse, type ProviderResponse } from "./response.js"
import { type RetryInfo, type RetryOptions, withRetry } from "./retry.js"

/** One request: the encoded body, the model (Gemini puts it in the path), and how to cancel or watch retries. */
export interface SendOptions {
  /** Default: the endpoint's wire format. */
  format?: WireFormat
  /** The encoded request body (`encodeRequest(...).body`), sent as JSON. */
  body: unknown
  /** Headers the encoded body needs (`encodeRequest(...).headers`: Anthropic betas), added to the endpoint's. */
  headers?: Record<string, string>
  model: string
  /** Cancels the request, any wait between retries, and the stream. */
  signal?: AbortSignal
  /** Hears of each retry before its wait (attempt, delay, error), so a CLI can show it. */
  onRetry?: (info: RetryInfo) => void
  /** Backoff policy, randomness and sleep. */
  retry?: RetryOptions
  /** Whether the answer is streamed; default: the body's `stream` field, else true. Picks Gemini's path. */
  stream?: boolean
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch
  /** The clock used to read date-valued retry-after headers (default Date.now). */
  now?: () => number
}

/**
 * Sends one encoded request over HTTP and returns the answer once it starts. Failures before the
 * stream starts become ProviderErrors; rate limits, overload, server errors and network failures
 * are retried with backoff (see withRetry), the others are thrown at once. Errors inside the stream
 * are error events, not retried here. An aborted signal throws its reason.
 */
export async function send(endpoint: Endpoint, options: SendOptions): Promise<ProviderResponse> {
  const format = options.format ?? endpoint.format
  const stream = options.stream ?? streamField(options.body) ?? true
  const url = requestUrl(endpoint, options.model, { format, stream })
  const payload = JSON.stringify(options.body)
  const doFetch = options.fetch ?? fetch
  const now = options.now ?? Date.now
  const { signal } = options
  const headers: Record<string, string> = { ...endpoint.headers, ...options.headers }
  if (stream) headers.accept = "text/event-stream"
  // A request that cannot even be built (a malformed URL, a header value that is not allowed) would fail
  // the same way on every attempt: it is refused at once instead of being retried as a network failure.
  try {
    new Request(url, { method: "POST", headers, body: payload })
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    throw new EndpointError("invalid-request-target", `cannot send to ${url}: ${reason}`, { cause: error })
  }
  return withRetry(
    async (attempt) => {
      let response: Response
      try {
        response = await doFetch(url, { method: "POST", headers, body: payload, ...(signal ? { signal } : {}) })
      } catch (error) {
        if (signal?.aborted) throw signal.reason
        throw networkError(error instanceof TypeError && error.cause !== undefined ? error.cause : error, url)
      }
      if (!response.ok) {
        const text = await response.text().catch(() => "")
        // An error that quotes the key it was sent (some providers and proxies do) is told without it.
        const body = redactText(text, credentialsOf(headers))
        throw classifyHttpError({ status: response.status, body, headers: response.headers, now: now() })
      }
      return new HttpResponse(format, response, attempt + 1, signal, decodeOptionsFor(format, options.body))
    },
    { ...options.retry, ...(signal ? { signal } : {}), ...(options.onRetry ? { onRetry: options.onRetry } : {}) },
  )
}

/** An HTTP answer: an SSE stream decoded as it arrives, or one JSON body turned into the same events. */
class HttpResponse extends OneShotResponse {
  readonly status: number
  readonly requestId: string | undefined
  #stats: () => DecodeStats = emptyStats

  constructor(
    readonly format: WireFormat,
    private readonly response: Response,
    readonly attempts: number,
    private readonly signal: AbortSignal | undefined,
    private readonly decodeOptions: DecodeOptions,
  ) {
    super()
    this.status = response.status
    this.requestId = response.headers.get("request-id") ?? response.headers.get("x-request-id") ?? undefined
  }

  get stats(): DecodeStats {
    return this.#stats()
  }

  protected async *produce(): AsyncGenerator<StreamEvent[]> {
    const body = this.response.body
    const type = this.response.headers.get("content-type") ?? ""
    if (body === null || /application\/json/i.test(type)) {
      yield await this.#whole()
      return
    }
    const decoded = decodeStream(this.format, body, this.decodeOptions)
    this.#stats = () => decoded.stats
    for await (const batch of decoded.batches()) {
      // The decoder reports a broken body as a network error event; a cancelled one is the caller's abort.
      if (this.signal?.aborted) throw this.signal.reason
      yield batch
    }
  }

  async #whole(): Promise<StreamEvent[]> {
    let text: string
    try {
      text = await this.response.text()
    } catch (error) {
      if (this.signal?.aborted) throw this.signal.reason
      const reason = error instanceof Error ? error.message : String(error)
      return [
        { type: "error", kind: "network", message: `the connection failed: ${reason}` },
        { type: "stop", reason: "error" },
      ]
    }
    const stats = { ...emptyStats(), bytes: Buffer.byteLength(text), payloads: 1 }
    this.#stats = () => stats
    try {
      return responseBodyEvents(this.format, JSON.parse(text))
    } catch (error) {
      stats.malformed = 1
      const reason = error instanceof Error ? error.message : String(error)
      return [
        { type: "error", kind: "malformed", message: `the response body is not JSON: ${reason}`, raw: text },
        { type: "stop", reason: "error" },
      ]
    }
  }
}

function streamField(body: unknown): boolean | undefined {
  if (typeof body !== "object" || body === null) return undefined
  const value = (body as { stream?: unknown }).stream
  return typeof value === "boolean" ? value : undefined
}

/**
 * An agent's SendRequest over HTTP: each request goes to `endpoint` through `send`, and each retry is reported
 * to the agent. `options` fixes what every request shares (backoff, fetch, clock).
 */
export function sendTo(endpoint: Endpoint, options: Pick<SendOptions, "retry" | "fetch" | "now"> = {}): SendRequest {
  return (r) =>
    send(endpoint, {
      ...options,
      format: r.format,
      body: r.body,
      ...(r.headers ? { headers: r.headers } : {}),
      model: r.model.id,
      signal: r.signal,
      onRetry: (info) => r.onRetry(info.attempt, info.delayMs, info.error),
    })
}
