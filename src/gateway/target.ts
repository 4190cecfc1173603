/** Where an upstream call goes: the endpoint of a planned route, its URL, and the headers it carries. */
import type { IncomingHttpHeaders } from "node:http"
import { type Endpoint, endpointFor, requestUrl } from "../providers/endpoints.js"
import { HOP_BY_HOP } from "./exchange.js"
import type { Upstream } from "./routing.js"
import { CREDENTIAL_HEADERS, clientKey } from "./secrets.js"

/** Client headers never sent upstream besides the hop-by-hop ones: the gateway's own, and what it sets itself. */
const NOT_FORWARDED = new Set(["accept-encoding", "content-type", "x-promptline-conversation", "cookie"])

/**
 * The key for an upstream: its configured variable's value; else the key the client sent, unless the client's
 * credential was the gateway's own inbound token (then none).
 */
export function upstreamKey(
  upstream: Upstream,
  env: Readonly<Record<string, string | undefined>>,
  client: { headers: IncomingHttpHeaders; query: URLSearchParams; tokenInUse: boolean },
): string {
  if (upstream.keyEnv !== undefined) return env[upstream.keyEnv] ?? ""
  if (client.tokenInUse) return ""
  return clientKey(client.headers, client.query) ?? ""
}

/** The endpoint of an upstream with a key (the key's empty string sends no credential). */
export function upstreamEndpoint(upstream: Upstream, key: string): Endpoint {
  return endpointFor({
    provider: upstream.provider,
    format: upstream.format,
    env: {},
    apiKey: key,
    ...(upstream.baseUrl !== undefined ? { baseUrl: upstream.baseUrl } : {}),
  })
}

/** The URL of a generation request upstream, with the client's query parameters kept (`beta=true`, `alt=sse`) but its key dropped. */
export function generationUrl(
  endpoint: Endpoint,
  model: string,
  stream: boolean,
  clientQuery?: URLSearchParams,
): string {
  const url = new URL(requestUrl(endpoint, model, { stream }))
  if (clientQuery) {
    const query = new URLSearchParams(clientQuery)
    query.delete("key")
    url.search = query.toString()
  }
  return url.toString()
}

/**
 * The headers of a same-format call: the client's own (its API version and beta flags included) less the
 * hop-by-hop ones and its credentials, over the endpoint's defaults, with the endpoint's credentials.
 */
export function forwardHeaders(client: IncomingHttpHeaders, endpoint: Endpoint): Record<string, string> {
  const out: Record<string, string> = {}
  const auth: Record<string, string> = {}
  for (const [name, value] of Object.entries(endpoint.headers))
    if (CREDENTIAL_HEADERS.includes(name)) auth[name] = value
    else out[name] = value
  // Headers the client's Connection header names are hop-by-hop too.
  const listed = new Set(
    String(client.connection ?? "")
      .split(",")
      .map((h) => h.trim().toLowerCase()),
  )
  for (const [name, value] of Object.entries(client)) {
    if (
      value === undefined ||
      HOP_BY_HOP.has(name) ||
      listed.has(name) ||
      NOT_FORWARDED.has(name) ||
      CREDENTIAL_HEADERS.includes(name)
    )
      continue
    out[name] = Array.isArray(value) ? value.join(", ") : value
  }
  return { ...out, "content-type": "application/json", ...auth }
}
