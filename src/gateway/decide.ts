/**
 * Deciding an HTTP request up front, in the order the knowledge comes: what its line and headers say (the
 * client's API, the gateway's token), then its body within the limits, its model, the route (routing.ts) and the
 * upstream target with its URL and key (target.ts), and, when it is translated, the request decoded and its
 * conversation key. What is decided is one immutable RequestContext; a request refused on the way keeps what was
 * known of it then, for its record.
 */
import type { IncomingMessage } from "node:http"
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../json.js"
import { clientApiOf, countingRouteOf, isModelListPath, routeOf, servedPaths } from "../providers/api-paths.js"
import { formatModule } from "../providers/formats.js"
import { conversationKey, namedConversation } from "./conversation-key.js"
import { GatewayError } from "./errors.js"
import { readBody } from "./read-body.js"
import type { DecidedRequest, RequestContext, TranslatedRequest } from "./request.js"
import { type GatewayMode, isRefusal, officialProvider, planRoute, type RoutePlan } from "./routing.js"
import { clientKey, isToken, requestSecrets } from "./secrets.js"
import type { ServingConfig } from "./serving.js"
import { type KeySource, type UpstreamCall, upstreamTarget } from "./target.js"

/** What an HTTP request was decided to be: the pipeline it runs and the request as that pipeline reads it. */
export type Decision =
  | { pipeline: "models"; request: RequestContext }
  | { pipeline: "same-format"; request: DecidedRequest }
  | { pipeline: "translate" | "count"; request: TranslatedRequest }

/** A request refused while it was decided, with what was known of it then. */
export interface Refusal {
  pipeline: "refused"
  request: RequestContext
  error: unknown
}

/** Where a request's target could not be read as a URL: a placeholder its record shows. */
const UNREADABLE = new URL("http://gateway.invalid/")

/**
 * The request as it arrived: its sequence number and time, the client's API, and the secrets it holds so far.
 * `url` is its target as read by requestTarget (undefined: not readable as a URL).
 */
export function arrive(
  req: IncomingMessage,
  url: URL | undefined,
  seq: number,
  startedAt: number,
  serving: ServingConfig,
): RequestContext {
  const generation = url && routeOf(url.pathname, url.searchParams)
  const counting = url && !generation ? countingRouteOf(url.pathname) : undefined
  const api = generation ?? counting
  const kind = generation
    ? "generation"
    : counting
      ? "counting"
      : url && isModelListPath(url.pathname)
        ? "models"
        : undefined
  const clientFormat = api?.format ?? clientApiOf((url ?? UNREADABLE).pathname, req.headers)
  return {
    seq,
    startedAt,
    transport: "http",
    clientFormat,
    url: url ?? UNREADABLE,
    headers: req.headers,
    model: "",
    secrets: requestSecrets(clientKey(req.headers, (url ?? UNREADABLE).searchParams), serving.settings.token),
    ...(kind ? { kind } : {}),
    ...(api ? { api } : {}),
  }
}

/**
 * Decides what an arrived request is and where it goes; a refusal carries the error the client is answered with,
 * and the request as far as it was known then (its body, model and route, once read).
 */
export async function decide(
  req: IncomingMessage,
  arrived: RequestContext,
  serving: ServingConfig,
): Promise<Decision | Refusal> {
  // What was learned so far, for a refusal's record; the context is made once, when all of it is known.
  let body: unknown
  let model: string | undefined
  let route: RoutePlan | undefined
  try {
    const { settings } = serving
    const { url, headers } = arrived
    // The client's key as arrive read it: requestSecrets lists it first.
    const sentKey = arrived.secrets[0]
    if (settings.token !== undefined && !isToken(sentKey, settings.token))
      throw new GatewayError(
        { kind: "auth", message: "this gateway needs its token (in Authorization or x-api-key)" },
        401,
      )
    if (url === UNREADABLE)
      // Not echoed: a target that cannot be parsed cannot have its key parameter redacted either.
      throw new GatewayError({
        kind: "invalid-request",
        message: "the request target is neither a path nor a valid absolute URL",
      })
    const { api, kind } = arrived
    if (api?.invalid !== undefined) throw new GatewayError({ kind: "invalid-request", message: api.invalid })
    const keys: KeySource = { clientKey: sentKey, tokenInUse: settings.token !== undefined }
    if (kind === "models") {
      allowOnly(req, url, "GET")
      if ((serving.config?.routes ?? []).length > 0) return { pipeline: "models", request: arrived }
      // No routes: the client's own provider's list, with the key the client sent.
      const provider = officialProvider(arrived.clientFormat)!
      const upstream = { name: provider, provider, format: arrived.clientFormat }
      const call = { kind: "models", clientPath: url.pathname } as const
      const target = upstreamTarget(upstream, "", call, serving.env, keys)
      return {
        pipeline: "models",
        request: { ...arrived, target, secrets: requestSecrets(sentKey, settings.token, target.key) },
      }
    }
    if (!api || kind === undefined)
      throw new GatewayError(
        {
          kind: "not-found",
          message: `no API at ${req.method} ${url.pathname}; the gateway serves ${servedPaths().join(", ")}`,
        },
        404,
      )
    allowOnly(req, url, "POST")
    const type = headers["content-type"]
    if (type !== undefined && !/json/i.test(type))
      throw new GatewayError(
        { kind: "invalid-request", message: `the content type is ${type}; send application/json` },
        415,
      )
    const raw = await readBody(req, settings.bodyLimit, settings.bodyTimeoutMs)
    const parsed = parseBody(raw, (excerpt) => {
      body = excerpt
    })
    body = parsed
    model = api.route.model ?? (typeof parsed.model === "string" ? parsed.model : undefined)
    if (model === undefined)
      throw new GatewayError({ kind: "invalid-request", message: "the request names no model", param: "model" })
    const plan = planRoute(api.format, model, serving.config)
    if (isRefusal(plan)) throw new GatewayError({ kind: plan.kind, message: plan.refused, param: "model" })
    route = plan
    const counting = kind === "counting"
    const callFor = (mode: GatewayMode): UpstreamCall =>
      counting
        ? { kind: "counting" }
        : mode === "same-format"
          ? { kind: "generation", stream: api.route.stream ?? parsed.stream === true, clientQuery: url.searchParams }
          : { kind: "generation", stream: true }
    const target = upstreamTarget(plan.upstream, plan.model, callFor(plan.mode), serving.env, keys)
    const named = namedConversation(headers)
    const secrets = requestSecrets(sentKey, settings.token, target.key)
    // Every upstream's key is a secret of the request (a count falls back as a generation does).
    const fallbacks = plan.fallbacks
      ? plan.fallbacks.map((step) => ({
          step,
          target: upstreamTarget(step.upstream, step.model, callFor(step.mode), serving.env, keys),
        }))
      : undefined
    if (fallbacks) for (const f of fallbacks) secrets.push(f.target.key)
    const decided: DecidedRequest = {
      ...arrived,
      model,
      api,
      body: parsed,
      raw,
      kind,
      route: plan,
      target,
      secrets,
      ...(fallbacks ? { fallbacks } : {}),
      ...(named !== undefined ? { conversationKey: named } : {}),
    }
    // Same-format sends the bytes unread: the conversation key is worked out after the answer (record.ts).
    if (plan.mode === "same-format") return { pipeline: "same-format", request: decided }
    try {
      // Translating reads the body: a body its format's decoder refuses is the client's 400.
      const decoded = formatModule(api.format).decodeRequest(parsed, api.route)
      const key = conversationKey(headers, decoded)
      const translated: TranslatedRequest = {
        ...decided,
        decoded,
        ...(key !== undefined ? { conversationKey: key } : {}),
      }
      return { pipeline: counting ? "count" : "translate", request: translated }
    } catch (error) {
      return { pipeline: "refused", request: decided, error }
    }
  } catch (error) {
    const known: RequestContext = {
      ...arrived,
      ...(body !== undefined ? { body } : {}),
      ...(model !== undefined ? { model } : {}),
      ...(route !== undefined ? { route } : {}),
    }
    return { pipeline: "refused", request: known, error }
  }
}

/** Refuses any method but `method` on the path (405). */
function allowOnly(req: IncomingMessage, url: URL, method: string): void {
  if (req.method !== method)
    throw new GatewayError(
      { kind: "invalid-request", message: `${req.method} is not allowed on ${url.pathname}; use ${method}` },
      405,
    )
}

/**
 * The body as a JSON object. Nesting past the limit is refused before anything reads it (every layer that walks a
 * body recurses); what the record shows of a refused body (its start, or the value that is not an object) is
 * handed to `excerpt`.
 */
function parseBody(raw: Buffer, excerpt: (shown: unknown) => void): Record<string, unknown> {
  if (nestsDeeperThan(raw, MAX_JSON_DEPTH)) {
    excerpt(raw.subarray(0, 1000).toString("utf8"))
    throw new GatewayError({
      kind: "invalid-request",
      message: `the request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels, the gateway's limit`,
    })
  }
  let body: unknown
  try {
    body = JSON.parse(raw.toString("utf8"))
  } catch (error) {
    excerpt(raw.toString("utf8").slice(0, 1000))
    throw new GatewayError({
      kind: "invalid-request",
      message: `the request body is not valid JSON: ${(error as Error).message}`,
    })
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    excerpt(body)
    throw new GatewayError({ kind: "invalid-request", message: "the request body is not a JSON object" })
  }
  return body as Record<string, unknown>
}
