/**
 * The paths of the providers' own HTTP APIs, read back: which wire format a request path speaks and what the
 * path itself says (Gemini puts the model and the streaming mode there). Shared by every server that speaks
 * the providers' APIs (the replay server, the gateway); derived from each descriptor's `api`.
 */
import type { IncomingHttpHeaders } from "node:http"
import { matchPath, type PathMatch, type PathRule, type WireFormatDescriptor } from "./descriptor.js"
import { descriptorOf, type WireFormat, wireFormatDescriptors } from "./descriptors.js"
import type { SpokenFormat } from "./formats.js"
import type { RequestRoute } from "./types.js"

/** A generation path: the wire format it speaks and what the path says. */
export interface ApiRoute {
  format: SpokenFormat
  route: RequestRoute
  /** Why the path cannot be served although its format is known (a model name that is not valid percent-encoding). */
  invalid?: string
}

/** The descriptors whose client API the servers serve, in the set's order (by default the whole set, registered formats included). */
type Descriptors = readonly WireFormatDescriptor[]

/** The first descriptor whose `rule` reads `path`, as a route. */
function routeBy(
  descriptors: Descriptors,
  rule: (d: WireFormatDescriptor) => PathRule | undefined,
  path: string,
  query: URLSearchParams,
): ApiRoute | undefined {
  for (const d of descriptors) {
    const r = rule(d)
    const match = r && matchPath(r, path, query)
    if (match) return apiRoute(d.format as SpokenFormat, match)
  }
  return undefined
}

function apiRoute(format: SpokenFormat, { invalid, ...route }: PathMatch): ApiRoute {
  return invalid === undefined ? { format, route } : { format, route, invalid }
}

/** Which wire format a generation path speaks, and what the path itself says; undefined for any other path. */
export function routeOf(
  path: string,
  query: URLSearchParams,
  descriptors: Descriptors = wireFormatDescriptors(),
): ApiRoute | undefined {
  return routeBy(descriptors, (d) => d.api?.generation, path, query)
}

/** The wire format of a token-counting path (and the model, for Gemini), or undefined. */
export function countingRouteOf(
  path: string,
  descriptors: Descriptors = wireFormatDescriptors(),
): ApiRoute | undefined {
  return routeBy(descriptors, (d) => d.api?.counting, path, new URLSearchParams())
}

/** The wire format of a token-counting path, or undefined. */
export function countingFormat(
  path: string,
  descriptors: Descriptors = wireFormatDescriptors(),
): SpokenFormat | undefined {
  return countingRouteOf(path, descriptors)?.format
}

/** Whether a path lists models (`GET /v1/models`, Gemini's `/v1beta/models`). */
export function isModelListPath(path: string, descriptors: Descriptors = wireFormatDescriptors()): boolean {
  return descriptors.some((d) => d.api?.modelList?.paths?.(path) === true)
}

/**
 * The client API a request to any other path (a model list, an unknown path) speaks: by a path prefix its API
 * alone uses (Gemini's `/v1beta/`), else by a header its SDK sends (Anthropic's `anthropic-version`), else the
 * fallback API (OpenAI's).
 */
export function clientApiOf(
  path: string,
  headers: IncomingHttpHeaders,
  descriptors: Descriptors = wireFormatDescriptors(),
): SpokenFormat {
  const marked = (test: (marks: NonNullable<NonNullable<WireFormatDescriptor["api"]>["marks"]>) => boolean) =>
    descriptors.find((d) => d.api?.marks !== undefined && test(d.api.marks))
  const found =
    marked((m) => m.pathPrefix?.test(`${path}/`) === true) ??
    marked((m) => m.header !== undefined && headers[m.header] !== undefined) ??
    marked((m) => m.fallback === true)
  return found!.format as SpokenFormat
}

/**
 * The generation path of each client API, for messages: its first exact path, or (for a path rule that reads the
 * model from the path, Gemini's) its provider's whole-answer path with `{model}` left in.
 */
export function servedPaths(descriptors: Descriptors = wireFormatDescriptors()): string[] {
  return descriptors.flatMap((d) => {
    const rule = d.api?.generation
    if (rule === undefined) return []
    const path = typeof rule === "function" ? (d.endpoint.unaryPath ?? d.endpoint.path).split("?")[0]! : rule[0]
    return path === undefined ? [] : [path]
  })
}

/**
 * Where a server that speaks the client APIs (the replay server, the gateway) is reached by a client that appends
 * a format's provider path: the part of the client API path before it (OpenAI's `/v1`; empty where the two are the
 * same). A format without a client API of its own is served by the one it speaks.
 */
export function clientApiBase(format: WireFormat): string {
  const own = descriptorOf(format)
  const rule = (own.api ?? descriptorOf(own.speaks).api)?.generation
  const path = own.endpoint.path.split("?")[0]!
  const served = typeof rule === "object" ? rule.find((p) => p.endsWith(path)) : undefined
  return served === undefined ? "" : served.slice(0, served.length - path.length)
}
