/**
 * Routing: which upstream answers a client's request, with which model, in which mode. The config's routes
 * are tried in order; with no routes, each request goes to its own provider's official endpoint with the key
 * the client sent.
 */

import { setBounded } from "../bounded-map.js"
import type { GatewayConfig, RouteConfig, UpstreamConfig } from "../config/gateway.js"
import { upstreamFormatOf } from "../config/gateway-routes.js"
import type { WireFormat } from "../models/types.js"
import { PROVIDERS } from "../providers/endpoints.js"
import type { SpokenFormat } from "../providers/formats.js"
import { formatModule } from "../providers/formats.js"

/** How a request travels: its bytes forwarded unchanged, or decoded and encoded again for another format. */
export type GatewayMode = "same-format" | "translate"

/** An upstream as the gateway calls it. */
export interface Upstream {
  /** Its name in the config, or the provider id for the default (official) upstream. */
  name: string
  provider: string
  format: WireFormat
  /** Absent: the provider's official base URL. */
  baseUrl?: string
  /** The environment variable holding its key; absent: the client's key is forwarded. */
  keyEnv?: string
}

/** Where one request goes. */
export interface RoutePlan {
  upstream: Upstream
  /** The model the upstream is asked for. */
  model: string
  mode: GatewayMode
  /** Translate mode only: promptline places the cache breakpoints (and an OpenAI prompt_cache_key). */
  cache?: "optimize"
  /** Translate mode only: the history is fitted to the upstream model's budget. */
  fit?: boolean
  /** The index of the config route that matched; absent for the default route. */
  route?: number
}

/** Why a request has no route: no config route matches, or a route asks for what cannot be done. */
export interface RouteRefusal {
  refused: string
  /** Whether the model name is the problem (answered as not-found) or the route itself (a bad request). */
  kind: "not-found" | "invalid-request"
}

/** How many compiled route globs the memo keeps (a config has a few; every request matches them). */
const GLOB_PATTERNS = 256

/** Route globs compiled once, not per request (no flags: a pattern keeps no state between tests). */
const globPatterns = new Map<string, RegExp>()

/** A glob (`*` any run of characters, `?` one) as an anchored regular expression. */
export function globPattern(glob: string): RegExp {
  const known = globPatterns.get(glob)
  if (known) return known
  const source = glob
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".")
  const pattern = new RegExp(`^${source}$`)
  setBounded(globPatterns, glob, pattern, GLOB_PATTERNS)
  return pattern
}

/** The official provider of a wire format: the first hosted registry row that speaks it. */
export function officialProvider(format: WireFormat): string | undefined {
  return Object.values(PROVIDERS).find((p) => !p.local && p.paths[format] !== undefined)?.id
}

function upstreamOf(name: string, config: UpstreamConfig): Upstream {
  const out: Upstream = { name, provider: config.provider, format: upstreamFormatOf(config) }
  if (config.baseUrl !== undefined) out.baseUrl = config.baseUrl
  if (config.keyEnv !== undefined) out.keyEnv = config.keyEnv
  return out
}

/** The mode a route asks for, or the default: same-format when the client speaks the upstream's wire shape. */
function modeOf(route: RouteConfig | undefined, client: SpokenFormat, upstream: WireFormat): GatewayMode {
  if (route?.mode) return route.mode
  return formatModule(upstream).speaks === client ? "same-format" : "translate"
}

/** Plans one request: the client's wire format and model name in, the upstream, model and mode out. */
export function planRoute(
  client: SpokenFormat,
  model: string,
  config: GatewayConfig | undefined,
): RoutePlan | RouteRefusal {
  const routes = config?.routes ?? []
  if (routes.length === 0) {
    const provider = officialProvider(client)
    if (provider === undefined) return { refused: `no provider speaks ${client}`, kind: "invalid-request" }
    return { upstream: { name: provider, provider, format: client }, model, mode: "same-format" }
  }
  const index = routes.findIndex((r) => globPattern(r.match).test(model))
  if (index < 0)
    return {
      refused: `no route for model "${model}" (the routes match: ${routes.map((r) => r.match).join(", ")})`,
      kind: "not-found",
    }
  const route = routes[index]!
  const upstream = upstreamOf(route.upstream, config!.upstreams![route.upstream]!)
  const mode = modeOf(route, client, upstream.format)
  if (mode === "same-format" && formatModule(upstream.format).speaks !== client)
    return {
      refused: `route ${index + 1} ("${route.match}") forwards unchanged to a ${upstream.format} upstream, but this client speaks ${client}; set "mode": "translate"`,
      kind: "invalid-request",
    }
  const plan: RoutePlan = { upstream, model: route.model ?? model, mode, route: index }
  // Options that act on a decoded request, for a translated one only (config/gateway-routes.ts names the others).
  if (mode === "translate" && route.cache) plan.cache = route.cache
  if (mode === "translate" && route.fit) plan.fit = true
  return plan
}

/** Whether a planning result is a refusal. */
export function isRefusal(plan: RoutePlan | RouteRefusal): plan is RouteRefusal {
  return "refused" in plan
}
