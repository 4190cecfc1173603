/**
 * The WebSocket side's view of its gateway, and one `response.create` decided as a request: its route, its
 * upstream target (the Responses WebSocket endpoint for a relayed connection, the generation URL for a translated
 * response) and every secret it holds, as an HTTP request is decided (decide.ts).
 */
import type { IncomingMessage } from "node:http"
import { namedConversation } from "./conversation-key.js"
import type { GatewayRecord } from "./record.js"
import type { RequestContext, RouteLink } from "./request.js"
import { type GatewayMode, isRefusal, planRoute, type RouteRefusal } from "./routing.js"
import { clientKey, requestSecrets } from "./secrets.js"
import type { GatewayShared, ServingConfig } from "./serving.js"
import { upstreamTarget } from "./target.js"

/** What the WebSocket side of a gateway needs from the gateway. */
export interface SocketGateway {
  /** The configuration in force, read once per `response.create`. */
  serving: () => ServingConfig
  shared: GatewayShared
  nextSeq: () => number
  /**
   * Hears of each finished response: `record` builds its record (for the span and the log line), which the gateway
   * calls after the turn, with the records of the other requests that ended in it.
   */
  finish: (record: () => GatewayRecord) => void
  /** A response began (counted as active, so a closing gateway lets it finish); returns its end. */
  began: () => () => void
  /** Hears of a failure no frame could report (a socket or frame the gateway could not serve); the gateway goes on. */
  report: (error: unknown, where: string) => void
}

/** The connection a `response.create` came on: its upgrade request and target. */
export interface SocketConnection {
  req: IncomingMessage
  url: URL
}

/**
 * A `response.create` decided: routed, with its target and secrets, and on a translating route its other
 * upstreams, each with its target (a relayed connection stays with its first upstream, whose connection holds the
 * conversation).
 */
export type SocketRequest = RequestContext &
  Required<Pick<RequestContext, "route" | "target">> & { readonly fallbacks?: readonly RouteLink[] }

/**
 * Decides one `response.create` of a connection: the route its model takes, and the target of its upstream call
 * (the Responses WebSocket endpoint when the route relays, the generation URL when it translates). A connection
 * already served in one mode (`mode`) refuses a model routed the other way. `arrival` numbers an accepted
 * request and reads its time.
 */
export function socketRequest(
  connection: SocketConnection,
  event: Record<string, unknown>,
  serving: ServingConfig,
  arrival: () => { seq: number; startedAt: number },
  mode: GatewayMode | undefined,
): SocketRequest | RouteRefusal {
  const { req, url } = connection
  const model = typeof event.model === "string" ? event.model : ""
  const route = planRoute("openai-responses", model, serving.config)
  if (isRefusal(route)) return route
  if (mode !== undefined && route.mode !== mode)
    return {
      kind: "invalid-request",
      refused:
        mode === "same-format"
          ? `this connection is relayed to a Responses upstream; model ${model} goes to a translating route: open another connection for it`
          : `this connection translates; model ${model} goes to a same-format route: open another connection for it`,
    }
  const { token } = serving.settings
  const call =
    route.mode === "same-format" ? ({ kind: "websocket" } as const) : { kind: "generation" as const, stream: true }
  const keys = { clientKey: clientKey(req.headers, url.searchParams), tokenInUse: token !== undefined }
  const target = upstreamTarget(route.upstream, route.model, call, serving.env, keys)
  const named = namedConversation(req.headers)
  const secrets = requestSecrets(keys.clientKey, token, target.key)
  // Each response of a translating connection is an HTTP call: it falls back as one, every step translated.
  const fallbacks =
    route.mode === "translate" && route.fallbacks
      ? route.fallbacks.map((step) => ({
          step: { ...step, mode: "translate" as const },
          target: upstreamTarget(step.upstream, step.model, call, serving.env, keys),
        }))
      : undefined
  if (fallbacks) for (const f of fallbacks) secrets.push(f.target.key)
  return {
    ...arrival(),
    transport: "websocket",
    clientFormat: "openai-responses",
    url,
    headers: req.headers,
    body: event,
    model,
    secrets,
    route,
    target,
    ...(fallbacks ? { fallbacks } : {}),
    ...(named !== undefined ? { conversationKey: named } : {}),
  }
}
