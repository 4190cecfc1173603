/**
 * Routing: which upstream answers a client's request, with which model, in which mode. The config's routes
 * are tried in order; with no routes, each request goes to its own provider's official endpoint with the key
 * the client sent.
 */

import { setBounded } from "../bounded-map.js"
import type { DeferredToolsMode, GatewayConfig, RouteConfig, UpstreamConfig } from "../config/gateway.js"
import { routeLinks, upstreamFormatOf } from "../config/gateway-routes.js"
import type { WireFormat } from "../models/types.js"
import { wireFormatDescriptors } from "../providers/descriptors.js"
import { PROVIDERS, providerInfo } from "../providers/endpoints.js"
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

/** One upstream a request may be sent to: the upstream, the model it is asked for, and the mode of that attempt. */
export interface RouteStep {
  upstream: Upstream
  /** The model the upstream is asked for. */
  model: string
  mode: GatewayMode
}

/** Where one request goes. */
export interface RoutePlan extends RouteStep {
  /**
   * The upstreams tried after the first, in order, when it fails before any byte of an answer; absent when the
   * route names one upstream (the common case, which then takes no other path).
   */
  fallbacks?: readonly RouteStep[]
  /** The client picked the upstream in its model name (`upstream,model`). */
  picked?: true
  /** Translate mode only: promptline places the cache breakpoints (and an OpenAI prompt_cache_key). */
  cache?: "optimize"
  /** Translate mode only: the history is fitted to the upstream model's budget. */
  fit?: boolean
  /** How the client's deferred tools reach an upstream without tool search; absent: `search`. */
  deferredTools?: DeferredToolsMode
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

/**
 * The official provider of a wire format: the first hosted registry row that speaks it (registered formats that name
 * a listed provider included), else the first provider a registered format's descriptor names as its default.
 */
export function officialProvider(format: WireFormat): string | undefined {
  for (const id of Object.keys(PROVIDERS)) {
    const info = providerInfo(id)!
    if (!info.local && info.paths[format] !== undefined) return info.id
  }
  return wireFormatDescriptors().find((d) => d.format === format)?.defaultFor.providers[0]
}

/** The separator of a per-request upstream pick in a model name: `upstream,model`. */
export const PICK_SEPARATOR = ","

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

/** How many plans the memo keeps per config (distinct client formats and model names). */
const PLANS_PER_CONFIG = 256

/** Plans already made, per config: a config is never changed in place once it serves (a reload brings a new one). */
const plansByConfig = new WeakMap<GatewayConfig, Map<string, RoutePlan | RouteRefusal>>()
/** Plans made with no config. */
const plansWithoutConfig = new Map<string, RoutePlan | RouteRefusal>()

/**
 * Plans one request: the client's wire format and model name in, the upstream, model and mode out (with the
 * upstreams to fall back to, in order, when the route lists several). A model name `upstream,model` whose
 * `upstream` is one of the config's upstreams picks it for this request, with no fallback; one that names no
 * configured upstream is refused.
 *
 * A plan depends on these three alone, and a session asks for the same few, so each is made once per config and
 * shared, frozen, by the requests that ask for it again (making one was a tenth of a small request's time before
 * its upstream call; bench/history.md).
 */
export function planRoute(
  client: SpokenFormat,
  model: string,
  config: GatewayConfig | undefined,
): RoutePlan | RouteRefusal {
  let plans = config ? plansByConfig.get(config) : plansWithoutConfig
  if (!plans) {
    plans = new Map()
    plansByConfig.set(config!, plans)
  }
  const key = `${client}\n${model}`
  const known = plans.get(key)
  if (known) return known
  const plan = frozen(makePlan(client, model, config))
  setBounded(plans, key, plan, PLANS_PER_CONFIG)
  return plan
}

/** A plan frozen with what it holds, as the requests that share it see it. */
function frozen<T extends RoutePlan | RouteRefusal>(plan: T): T {
  if (!isRefusal(plan)) {
    Object.freeze(plan.upstream)
    if (plan.fallbacks) for (const step of plan.fallbacks) Object.freeze(Object.freeze(step).upstream)
    Object.freeze(plan.fallbacks)
  }
  return Object.freeze(plan)
}

function makePlan(client: SpokenFormat, model: string, config: GatewayConfig | undefined): RoutePlan | RouteRefusal {
  const routes = config?.routes ?? []
  const comma = model.indexOf(PICK_SEPARATOR)
  if (comma > 0) return pickedRoute(client, model.slice(0, comma), model.slice(comma + 1), config)
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
  const steps: RouteStep[] = []
  for (const link of routeLinks(route)) {
    const upstream = upstreamOf(link.upstream, config!.upstreams![link.upstream]!)
    const mode = modeOf(route, client, upstream.format)
    if (mode === "same-format" && formatModule(upstream.format).speaks !== client)
      return {
        refused: `route ${index + 1} ("${route.match}") forwards unchanged to a ${upstream.format} upstream (${link.upstream}), but this client speaks ${client}; set "mode": "translate"`,
        kind: "invalid-request",
      }
    steps.push({ upstream, model: link.model ?? route.model ?? model, mode })
  }
  const [first, ...rest] = steps as [RouteStep, ...RouteStep[]]
  const plan: RoutePlan = { ...first, route: index }
  if (rest.length > 0) plan.fallbacks = rest
  // Options that act on a decoded request, for a translated attempt only (config/gateway-routes.ts names the others).
  if (steps.some((s) => s.mode === "translate")) {
    if (route.cache) plan.cache = route.cache
    if (route.fit) plan.fit = true
    if (route.deferredTools) plan.deferredTools = route.deferredTools
  }
  return plan
}

/**
 * The route of a model name that picks its upstream (`upstream,model`): that upstream of the user's config, asked
 * for `model`, in the mode the client's format and the upstream's decide. Only the upstreams of the user's config
 * can be picked (the config's upstreams come from the user's file alone): any other name is refused.
 */
function pickedRoute(
  client: SpokenFormat,
  name: string,
  model: string,
  config: GatewayConfig | undefined,
): RoutePlan | RouteRefusal {
  const upstreams = config?.upstreams ?? {}
  const configured = Object.hasOwn(upstreams, name) ? upstreams[name] : undefined
  if (!configured)
    return {
      refused: `the model name picks upstream "${name}" ("upstream,model"), which the gateway's config does not have (the upstreams are: ${Object.keys(upstreams).join(", ") || "none"})`,
      kind: "not-found",
    }
  if (model === "")
    return { refused: `the model name picks upstream "${name}" but names no model after the comma`, kind: "not-found" }
  const upstream = upstreamOf(name, configured)
  return { upstream, model, mode: modeOf(undefined, client, upstream.format), picked: true }
}

/** Whether a planning result is a refusal. */
export function isRefusal(plan: RoutePlan | RouteRefusal): plan is RouteRefusal {
  return "refused" in plan
}
