/**
 * What a gateway route's options mean in its mode. A same-format route forwards a request's bytes unread, so
 * the options that act on a decoded request (`fit`, `cache`, `deferredTools`) apply to translated requests only: on a route
 * that is same-format for every client they never apply, and on a route whose mode follows the client (no
 * `mode`) they skip the clients that speak the upstream's format. Each such option is named, never ignored
 * silently.
 */
import { isLoopbackUrl } from "../http-url.js"
import { wireFormatOf } from "../models/wire.js"
import { descriptorOf, type WireFormat } from "../providers/descriptors.js"
import { providerInfo } from "../providers/endpoints.js"
import type { GatewayConfig, RouteConfig, UpstreamConfig } from "./gateway.js"

/** One upstream of a route's ordered list: its name, and the model it is asked for when the link names one. */
export interface RouteLink {
  upstream: string
  model?: string
}

/** A route's upstreams in the order they are tried (one for the single-upstream form). */
export function routeLinks(route: RouteConfig): RouteLink[] {
  const listed = typeof route.upstream === "string" ? [route.upstream] : route.upstream
  return listed.map((link) =>
    typeof link === "string"
      ? { upstream: link }
      : link.model === undefined
        ? { upstream: link.upstream }
        : { ...link },
  )
}

/** Route options that act on a translated request only. */
export const TRANSLATE_ONLY_ROUTE_OPTIONS = [
  "fit",
  "cache",
  "deferredTools",
] as const satisfies readonly (keyof RouteConfig)[]

/** The wire format the gateway speaks to an upstream: the one configured, else its provider's own. */
export function upstreamFormatOf(upstream: UpstreamConfig): WireFormat {
  return (
    upstream.format ?? wireFormatOf({ provider: providerInfo(upstream.provider)?.id ?? upstream.provider, family: "" })
  )
}

/** A route option its mode leaves unused, for some clients or for all. */
export interface RouteOptionIssue {
  /** The route's index in `routes`. */
  route: number
  option: (typeof TRANSLATE_ONLY_ROUTE_OPTIONS)[number]
  /** `error`: the option never applies; `warning`: it skips the clients that speak the upstream's format. */
  level: "error" | "warning"
  message: string
}

/** Every translate-only option on a route that forwards some or all of its requests unchanged. */
export function routeOptionIssues(gateway: GatewayConfig): RouteOptionIssue[] {
  const issues: RouteOptionIssue[] = []
  for (const [index, route] of (gateway.routes ?? []).entries()) {
    // The first upstream decides: the options name what happens to a request that is not falling back.
    const first = routeLinks(route)[0]!.upstream
    const upstream = gateway.upstreams?.[first]
    if (!upstream || route.mode === "translate") continue
    const name = `route ${index + 1} ("${route.match}")`
    for (const option of TRANSLATE_ONLY_ROUTE_OPTIONS) {
      if (route[option] === undefined || route[option] === false) continue
      const spoken = descriptorOf(upstreamFormatOf(upstream)).speaks
      issues.push(
        route.mode === "same-format"
          ? {
              route: index,
              option,
              level: "error",
              message: `${name} forwards requests unchanged ("mode": "same-format"), so its "${option}" never applies; remove it, or set "mode": "translate"`,
            }
          : {
              route: index,
              option,
              level: "warning",
              message: `${name} forwards the requests of clients that speak ${spoken} unchanged to upstream "${first}", so its "${option}" applies only to the other clients' requests, which it translates; set "mode": "translate" to apply it to all`,
            },
      )
    }
  }
  return issues
}

/** A gateway that takes a token but sends some requests upstream without a key. */
export interface KeylessUpstreamIssue {
  /** The config field to point at: the upstream, or `tokenEnv` when no route names an upstream. */
  field: string[]
  message: string
}

/**
 * With `tokenEnv` set, the credential a client sends is the gateway's own token, never forwarded: an upstream then
 * gets a key from its `keyEnv` only. Names each upstream on another machine without one (a server on this machine
 * may need no key), and a gateway without routes, whose requests go to the official providers with no key at all.
 */
export function keylessUpstreamIssues(gateway: GatewayConfig): KeylessUpstreamIssue[] {
  if (gateway.tokenEnv === undefined) return []
  if ((gateway.routes ?? []).length === 0)
    return [
      {
        field: ["gateway", "tokenEnv"],
        message: `the gateway takes a token ("tokenEnv": "${gateway.tokenEnv}") and has no routes, so each request goes to its official provider without a key (a client's credential is the token, never forwarded); add routes to upstreams with a "keyEnv"`,
      },
    ]
  const issues: KeylessUpstreamIssue[] = []
  for (const [name, upstream] of Object.entries(gateway.upstreams ?? {})) {
    if (upstream.keyEnv !== undefined || isLoopbackUrl(upstream.baseUrl)) continue
    issues.push({
      field: ["gateway", "upstreams", name],
      message: `upstream "${name}" has no "keyEnv", and the gateway takes a token ("tokenEnv"), so its requests go out without a key (a client's credential is the token, never forwarded); set "keyEnv" to the variable holding its key`,
    })
  }
  return issues
}
