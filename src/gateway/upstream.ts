/**
 * One call to an upstream over node:http(s): the raw answer bytes (no decompression, so a same-format
 * answer is forwarded as it came), with a connect timeout, an idle timeout (no byte for that long, before the
 * headers or between chunks) and cancellation when the client goes away.
 */
import { type ClientRequest, request as httpRequest, type IncomingMessage, type RequestOptions } from "node:http"
import { request as httpsRequest } from "node:https"
import type { Socket } from "node:net"
import { urlToHttpOptions } from "node:url"
import { setBounded } from "../bounded-map.js"
import { ProviderError } from "../providers/errors.js"

/**
 * What cancels a call when its client goes away: the part of an AbortSignal the gateway uses. An AbortSignal is
 * one (a WebSocket response's); an HTTP request's is its reply's `gone` (reply.ts), lighter than an AbortController,
 * which with its listeners cost 0.2-0.3x the bare proxy's CPU per small request under load (bench/history.md).
 */
export interface CancelSignal {
  readonly aborted: boolean
  addEventListener(type: "abort", listener: () => void, options?: { once?: boolean }): void
  removeEventListener(type: "abort", listener: () => void): void
}

/** What an upstream call needs. */
export interface UpstreamRequest {
  url: string
  method: string
  headers: Record<string, string>
  body?: Buffer | string
  /** Aborts the call and its answer (the client went away). */
  signal: CancelSignal
  connectTimeoutMs: number
  idleTimeoutMs: number
  /** How long the answer's headers may take from the call's start (a route with a next upstream); absent: no limit. */
  headersTimeoutMs?: number
}

/** The upstream's answer once its headers arrived; `body` yields the raw bytes. */
export interface UpstreamAnswer {
  status: number
  headers: IncomingMessage["headers"]
  body: IncomingMessage
  /** Why the answer was cut, when the gateway cut it (an idle timeout); undefined otherwise. */
  cutBy(): ProviderError | undefined
}

/** The host (and port) of a URL a call was made to, as messages name it (parsed only for a message). */
const hostOf = (url: string) => new URL(url).host

/** The upstream took too long to connect, to send its answer's headers, or stayed silent too long. */
export function timeoutError(what: "connect" | "headers" | "idle", ms: number, url: string): ProviderError {
  const host = hostOf(url)
  const message =
    what === "connect"
      ? `the upstream at ${host} did not accept a connection within ${ms} ms`
      : what === "headers"
        ? `the upstream at ${host} sent no answer headers within ${ms} ms`
        : `the upstream at ${host} sent nothing for ${ms} ms`
  return new ProviderError("network", message, { retryable: true })
}

/** How many parsed upstream URLs the memo keeps (a config calls a few). */
const CALL_URLS = 256

/** Upstream URLs as node:http's request options, parsed once (a call made them anew every time). */
const callOptions = new Map<string, Readonly<RequestOptions>>()

/** `url` as request options (protocol, host, port, path). */
function optionsOf(url: string): Readonly<RequestOptions> {
  let known = callOptions.get(url)
  if (!known) {
    known = Object.freeze(urlToHttpOptions(new URL(url)))
    setBounded(callOptions, url, known, CALL_URLS)
  }
  return known
}

/** Sends one request upstream; resolves once the answer's headers arrived, rejects with a ProviderError. */
export function callUpstream(req: UpstreamRequest): Promise<UpstreamAnswer> {
  return new Promise((resolve, reject) => {
    let url: Readonly<RequestOptions>
    try {
      url = optionsOf(req.url)
    } catch (error) {
      reject(
        new ProviderError(
          "invalid-request",
          `cannot call the upstream: its URL is not valid (${(error as Error).message})`,
        ),
      )
      return
    }
    const send = url.protocol === "https:" ? httpsRequest : httpRequest
    let connectTimer: NodeJS.Timeout | undefined
    let headersTimer: NodeJS.Timeout | undefined
    let settled = false
    let cut: ProviderError | undefined
    const fail = (error: Error) => {
      clearTimeout(connectTimer)
      clearTimeout(headersTimer)
      if (!settled) {
        settled = true
        reject(error)
      }
    }
    let outgoing: ClientRequest
    try {
      outgoing = send({ ...url, method: req.method, headers: req.headers })
    } catch (error) {
      reject(new ProviderError("invalid-request", `cannot call ${hostOf(req.url)}: ${(error as Error).message}`))
      return
    }
    // The client going away destroys the call and its answer. A listener of our own rather than the `signal`
    // option, whose stream plumbing costs more than the rest of the call's set-up on this path.
    let answer: IncomingMessage | undefined
    const cancel = () => {
      const error = new ProviderError("network", "the client went away; the call was cancelled")
      outgoing.destroy(error)
      answer?.destroy(error)
    }
    const release = () => req.signal.removeEventListener("abort", cancel)
    if (req.signal.aborted) cancel()
    else {
      req.signal.addEventListener("abort", cancel, { once: true })
      outgoing.once("close", () => {
        if (answer === undefined || answer.destroyed || answer.complete) release()
        else answer.once("close", release)
      })
    }
    outgoing.on("socket", (socket: Socket) => {
      if (!socket.connecting) return
      connectTimer = setTimeout(
        () => outgoing.destroy(timeoutError("connect", req.connectTimeoutMs, req.url)),
        req.connectTimeoutMs,
      )
      socket.once("connect", () => clearTimeout(connectTimer))
    })
    if (req.headersTimeoutMs !== undefined) {
      const ms = req.headersTimeoutMs
      headersTimer = setTimeout(() => outgoing.destroy(timeoutError("headers", ms, req.url)), ms)
    }
    // Inactivity on the socket, before the headers and between chunks of the body.
    outgoing.setTimeout(req.idleTimeoutMs, () => {
      cut = timeoutError("idle", req.idleTimeoutMs, req.url)
      outgoing.destroy(cut)
    })
    outgoing.on("error", (error: Error) => {
      if (error instanceof ProviderError) return fail(error)
      if (req.signal.aborted) return fail(new ProviderError("network", "the client went away; the call was cancelled"))
      fail(
        new ProviderError(
          "network",
          `the upstream at ${hostOf(req.url)} failed: ${(error as NodeJS.ErrnoException).code ?? error.message}`,
          { cause: error },
        ),
      )
    })
    outgoing.on("response", (message) => {
      clearTimeout(connectTimer)
      clearTimeout(headersTimer)
      settled = true
      answer = message
      resolve({ status: message.statusCode ?? 502, headers: message.headers, body: message, cutBy: () => cut })
    })
    outgoing.end(req.body)
  })
}

/** Reads a whole (small) answer body as text, up to `limit` bytes. */
export async function readText(body: IncomingMessage, limit = 1 << 20): Promise<string> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > limit) break
    chunks.push(chunk)
  }
  return Buffer.concat(chunks).toString("utf8")
}
