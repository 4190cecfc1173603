/**
 * Where one request's upstream call goes, decided up front: the upstream the route chose, the key it is called
 * with, its endpoint and the URL of the call, and the headers a same-format call carries.
 */
import type { IncomingHttpHeaders } from "node:http"
import { setBounded } from "../bounded-map.js"
import { countingRequest, hasCountingEndpoint } from "../providers/count.js"
import {
  type Endpoint,
  endpointFor,
  keyStyleOf,
  requestUrl,
  responsesSocketUrl,
  withKey,
} from "../providers/endpoints.js"
import type { Upstream } from "./routing.js"
import { CREDENTIAL_HEADERS } from "./secrets.js"

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

/** Client headers never sent upstream besides the hop-by-hop ones: the gateway's own, and what it sets itself. */
const NOT_FORWARDED = new Set(["accept-encoding", "content-type", "x-promptline-conversation", "cookie"])

/** An upstream as one request calls it. */
export interface UpstreamTarget {
  readonly upstream: Upstream
  /** The model the upstream is asked for. */
  readonly model: string
  /** The key the call carries ("" carries none). */
  readonly key: string
  readonly endpoint: Endpoint
  /** The URL of the call; undefined when no call is made (a count promptline makes itself). */
  readonly url: string | undefined
  /** The key when it is the gateway's own (`keyEnv`): kept out of every byte a client gets, answers included. */
  readonly ownKey?: string
}

/** What the call is for, which decides its URL. */
export type UpstreamCall =
  /** A generation: `stream` as the upstream is asked; the client's query kept (same-format: `beta=true`, `alt=sse`). */
  | { kind: "generation"; stream: boolean; clientQuery?: URLSearchParams }
  /** A token count at the upstream's counting endpoint, when its format has one. */
  | { kind: "counting" }
  /** The provider's model list, at the path the client asked for. */
  | { kind: "models"; clientPath: string }
  /** The Responses WebSocket endpoint. */
  | { kind: "websocket" }

/** The client side of choosing a key: the key the client sent (clientKey), and whether the gateway's inbound token is in use. */
export interface KeySource {
  clientKey: string | undefined
  tokenInUse: boolean
}

/**
 * The key for an upstream: its configured variable's value; else the key the client sent, unless the client's
 * credential was the gateway's own inbound token (then none).
 */
function upstreamKey(upstream: Upstream, env: Readonly<Record<string, string | undefined>>, client: KeySource): string {
  if (upstream.keyEnv !== undefined) return env[upstream.keyEnv] ?? ""
  if (client.tokenInUse) return ""
  return client.clientKey ?? ""
}

/** The endpoint of an upstream with a key (the key's empty string sends no credential). */
function upstreamEndpoint(upstream: Upstream, key: string): Endpoint {
  return endpointFor({
    provider: upstream.provider,
    format: upstream.format,
    env: {},
    apiKey: key,
    ...(upstream.baseUrl !== undefined ? { baseUrl: upstream.baseUrl } : {}),
  })
}

/** How many keyless generation calls the memo keeps per upstream (distinct model, stream and query). */
const GENERATION_CALLS = 256

/** What a generation call is made of besides its key: the endpoint made with no key, its key style, the URL. */
interface KeylessCall {
  readonly endpoint: Endpoint
  readonly style: ReturnType<typeof keyStyleOf>
  readonly url: string | undefined
}

/**
 * Generation calls by what they are made of less the key, per upstream: a pure answer, and the same few for every
 * request of a session, whose making (endpoint, URL) was the largest part of deciding a same-format request. Kept
 * by the upstream itself, which the route plans share (routing.ts; a frozen value); an upstream made for one
 * request takes its calls with it. No key is kept: a client's credential lives only as long as its request; each
 * call adds its key to the kept endpoint.
 */
const generationCalls = new WeakMap<Upstream, Map<string, KeylessCall>>()

/** Decides the target of one call: its key, endpoint and URL. */
export function upstreamTarget(
  upstream: Upstream,
  model: string,
  call: UpstreamCall,
  env: Readonly<Record<string, string | undefined>>,
  client: KeySource,
): UpstreamTarget {
  const key = upstreamKey(upstream, env, client)
  if (call.kind !== "generation") return makeTarget(upstream, model, call, key)
  let calls = generationCalls.get(upstream)
  if (!calls) {
    calls = new Map()
    generationCalls.set(upstream, calls)
  }
  // The model last: neither of the others holds a line break (a query is percent-encoded), so no two calls share a
  // key. The query less its `key` parameter, which the call's URL drops too: a client's key is never kept.
  const memoKey = `${call.stream}\n${call.clientQuery?.size ? keylessQuery(call.clientQuery) : ""}\n${model}`
  let known = calls.get(memoKey)
  if (!known) {
    const endpoint = upstreamEndpoint(upstream, "")
    known = { endpoint, style: keyStyleOf(endpoint), url: callUrl(endpoint, upstream, model, call) }
    setBounded(calls, memoKey, known, GENERATION_CALLS)
  }
  return targetOf(upstream, model, key, withKey(known.endpoint, known.style, key), known.url)
}

/** Makes the target of one call with `key`. */
function makeTarget(upstream: Upstream, model: string, call: UpstreamCall, key: string): UpstreamTarget {
  const endpoint = upstreamEndpoint(upstream, key)
  return targetOf(upstream, model, key, endpoint, callUrl(endpoint, upstream, model, call))
}

function targetOf(
  upstream: Upstream,
  model: string,
  key: string,
  endpoint: Endpoint,
  url: string | undefined,
): UpstreamTarget {
  return upstream.keyEnv !== undefined
    ? { upstream, model, key, endpoint, url, ownKey: key }
    : { upstream, model, key, endpoint, url }
}

function callUrl(endpoint: Endpoint, upstream: Upstream, model: string, call: UpstreamCall): string | undefined {
  switch (call.kind) {
    case "generation":
      return generationUrl(endpoint, model, call.stream, call.clientQuery)
    case "counting":
      return hasCountingEndpoint(upstream.format)
        ? countingRequest(endpoint, upstream.format, model, {}).url
        : undefined
    case "models": {
      // The Anthropic and OpenAI paths start with /v1, which an OpenAI base URL already ends in.
      const path = new URL(endpoint.baseUrl).pathname.endsWith("/v1")
        ? call.clientPath.replace(/^\/v1(?=\/models)/, "")
        : call.clientPath
      return `${endpoint.baseUrl}${path}`
    }
    case "websocket":
      return responsesSocketUrl(endpoint)
  }
}

/** A client's query as text, less its `key` parameter (Gemini's key). */
function keylessQuery(query: URLSearchParams): string {
  if (!query.has("key")) return query.toString()
  const kept = new URLSearchParams(query)
  kept.delete("key")
  return kept.toString()
}

/** The URL of a generation request upstream, with the client's query parameters kept (`beta=true`, `alt=sse`) but its key dropped. */
function generationUrl(endpoint: Endpoint, model: string, stream: boolean, clientQuery?: URLSearchParams): string {
  const url = new URL(requestUrl(endpoint, model, { stream }))
  if (clientQuery) url.search = keylessQuery(clientQuery)
  return url.toString()
}

/** Client headers never sent upstream: the hop-by-hop ones, the gateway's own and what it sets, credentials. */
const NEVER_FORWARDED: ReadonlySet<string> = new Set([...HOP_BY_HOP, ...NOT_FORWARDED, ...CREDENTIAL_HEADERS])

/**
 * The headers a client's Connection header names, hop-by-hop too; undefined when it names none but the usual
 * `keep-alive` or `close` (nearly every request: no set is made for it).
 */
function connectionListed(connection: string | undefined): ReadonlySet<string> | undefined {
  if (connection === undefined) return undefined
  const one = connection.trim().toLowerCase()
  if (one === "keep-alive" || one === "close") return undefined
  return new Set(connection.split(",").map((h) => h.trim().toLowerCase()))
}

/**
 * The headers of a same-format call: the client's own (its API version and beta flags included) less the
 * hop-by-hop ones and its credentials, over the endpoint's defaults, with the endpoint's credentials.
 * Runs for every forwarded request: one object written in place, no copies.
 */
export function forwardHeaders(client: IncomingHttpHeaders, endpoint: Endpoint): Record<string, string> {
  const out: Record<string, string> = {}
  const defaults = endpoint.headers
  for (const name in defaults) if (!CREDENTIAL_HEADERS.has(name)) out[name] = defaults[name]!
  const listed = connectionListed(client.connection)
  for (const name in client) {
    const value = client[name]
    if (value === undefined || NEVER_FORWARDED.has(name) || listed?.has(name)) continue
    out[name] = Array.isArray(value) ? value.join(", ") : value
  }
  out["content-type"] = "application/json"
  for (const name in defaults) if (CREDENTIAL_HEADERS.has(name)) out[name] = defaults[name]!
  return out
}
