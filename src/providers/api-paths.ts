/**
 * The paths of the providers' own HTTP APIs, read back: which wire format a request path speaks and what the
 * path itself says (Gemini puts the model and the streaming mode there). Shared by every server that speaks
 * the providers' APIs (the replay server, the gateway).
 */
import type { SpokenFormat } from "./formats.js"
import type { RequestRoute } from "./types.js"

const GEMINI_ROUTE = /^\/(v1|v1beta|v1alpha)\/models\/([^/:]+):(streamGenerateContent|generateContent)$/
const GEMINI_COUNT = /^\/(v1|v1beta|v1alpha)\/models\/([^/:]+):countTokens$/

/** A generation path: the wire format it speaks and what the path says. */
export interface ApiRoute {
  format: SpokenFormat
  route: RequestRoute
  /** Why the path cannot be served although its format is known (a model name that is not valid percent-encoding). */
  invalid?: string
}

/** A Gemini path's model segment decoded, or why it cannot be (a lone `%`, `%ZZ`, escapes that are not UTF-8). */
function modelOf(segment: string): { model: string } | { invalid: string } {
  try {
    return { model: decodeURIComponent(segment) }
  } catch {
    const shown = segment.length > 100 ? `${segment.slice(0, 99)}…` : segment
    return { invalid: `the model name in the path (${shown}) is not valid percent-encoding` }
  }
}

/** Which wire format a generation path speaks, and what the path itself says; undefined for any other path. */
export function routeOf(path: string, query: URLSearchParams): ApiRoute | undefined {
  if (path === "/v1/messages") return { format: "anthropic", route: {} }
  // DeepSeek and some compatible servers are also called without the /v1 prefix.
  if (path === "/v1/chat/completions" || path === "/chat/completions") return { format: "openai-chat", route: {} }
  if (path === "/v1/responses" || path === "/responses") return { format: "openai-responses", route: {} }
  const gemini = GEMINI_ROUTE.exec(path)
  if (gemini) {
    const stream = gemini[3] === "streamGenerateContent"
    const model = modelOf(gemini[2]!)
    const route = { stream, sse: stream && query.get("alt") === "sse" }
    return "model" in model
      ? { format: "gemini", route: { model: model.model, ...route } }
      : { format: "gemini", route, ...model }
  }
  return undefined
}

/** The wire format of a token-counting path (and the model, for Gemini), or undefined. */
export function countingRouteOf(path: string): ApiRoute | undefined {
  if (path === "/v1/messages/count_tokens") return { format: "anthropic", route: {} }
  if (path === "/v1/responses/input_tokens" || path === "/responses/input_tokens")
    return { format: "openai-responses", route: {} }
  const gemini = GEMINI_COUNT.exec(path)
  if (!gemini) return undefined
  const model = modelOf(gemini[2]!)
  return "model" in model
    ? { format: "gemini", route: { model: model.model } }
    : { format: "gemini", route: {}, ...model }
}

/** The wire format of a token-counting path, or undefined. */
export function countingFormat(path: string): SpokenFormat | undefined {
  return countingRouteOf(path)?.format
}

/** Whether a path lists models (`GET /v1/models`, Gemini's `/v1beta/models`). */
export function isModelListPath(path: string): boolean {
  return path === "/v1/models" || path === "/models" || /^\/(v1|v1beta|v1alpha)\/models$/.test(path)
}
