/**
 * One request as the gateway decided it, up front and once: who sent it and when, what it asks for, where it goes
 * (the route, the mode and the upstream target with its URL and key), the conversation it belongs to when that is
 * known before the answer, and every secret to keep out of what the gateway writes. Immutable: a pipeline reads
 * it and returns an outcome (outcome.ts); nothing writes to it on the way.
 */
import type { IncomingHttpHeaders } from "node:http"
import type { ApiRoute } from "../providers/api-paths.js"
import type { SpokenFormat } from "../providers/formats.js"
import type { DecodedRequest } from "../providers/types.js"
import type { RoutePlan, RouteStep } from "./routing.js"
import type { UpstreamTarget } from "./target.js"

/** A request as known so far: always its arrival; where it goes once that was decided. */
export interface RequestContext {
  /** 1, 2, … in arrival order (a WebSocket `response.create` counts as one). */
  readonly seq: number
  /** Milliseconds since the epoch when it arrived. */
  readonly startedAt: number
  readonly transport: "http" | "websocket"
  /** The API the client speaks. */
  readonly clientFormat: SpokenFormat
  /** The client's request target. */
  readonly url: URL
  readonly headers: IncomingHttpHeaders
  /** What the client asks for, as its path says; absent for a path the gateway does not serve. */
  readonly kind?: "generation" | "counting" | "models"
  /** What the client's path says: its format, and Gemini's model, stream and `alt=sse`. */
  readonly api?: ApiRoute
  /** The client's body: the parsed JSON (a WebSocket event), or the start of a body that was not JSON. */
  readonly body?: unknown
  /** The model the client asked for ("" until known). */
  readonly model: string
  /**
   * Every secret the request holds, kept out of its record and of every error its client is told: the client's
   * credential, the gateway's token, the upstream's key.
   */
  readonly secrets: readonly (string | undefined)[]
  /** The route, once planned. */
  readonly route?: RoutePlan
  /** The upstream call's target, once decided. */
  readonly target?: UpstreamTarget
  /**
   * The conversation key when it is known before the answer: the client's header, or the key a translated request
   * was decoded for. Otherwise it is worked out from the body after the answer (conversation-key.ts).
   */
  readonly conversationKey?: string
  /**
   * The client's body in promptline's terms, when the request was decoded on its way (translate mode): the
   * conversation key is then derived from it rather than decoded again.
   */
  readonly decoded?: DecodedRequest
}

/** A generation or counting request whose route and target are decided: what a pipeline runs. */
export interface DecidedRequest extends RequestContext {
  readonly body: Record<string, unknown>
  /** The client's body bytes, as they came. */
  readonly raw: Buffer
  readonly api: ApiRoute
  readonly kind: "generation" | "counting"
  readonly route: RoutePlan
  readonly target: UpstreamTarget
  /** The route's other upstreams, in the order they are tried, each with its target (absent: the route has one). */
  readonly fallbacks?: readonly RouteLink[]
}

/** One upstream of a request's route: the route's step and the target of its call (fallback.ts tries them in order). */
export interface RouteLink {
  readonly step: RouteStep
  readonly target: UpstreamTarget
}

/** A decided request that is translated: decoded on its way, its conversation key known. */
export interface TranslatedRequest extends DecidedRequest {
  readonly decoded: DecodedRequest
}

/** A request's target as a URL; undefined when it cannot be read as one (an absolute form such as `http://[::1`). */
export function requestTarget(target: string | undefined): URL | undefined {
  try {
    return new URL(target ?? "/", "http://gateway.invalid")
  } catch {
    return undefined
  }
}
