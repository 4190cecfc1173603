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
    return {
      format: "gemini",
      route: { model: decodeURIComponent(gemini[2]!), stream, sse: stream && query.get("alt") === "sse" },
    }
  }
  return undefined
}

/** The wire format of a token-counting path (and the model, for Gemini), or undefined. */
export function countingRouteOf(path: string): ApiRoute | undefined {
  if (path === "/v1/messages/count_tokens") return { format: "anthropic", route: {} }
  if (path === "/v1/responses/input_tokens" || path === "/responses/input_tokens")
    return { format: "openai-responses", route: {} }
  const gemini = GEMINI_COUNT.exec(path)
  if (gemini) return { format: "gemini", route: { model: decodeURIComponent(gemini[2]!) } }
  return undefined
}

/** The wire format of a token-counting path, or undefined. */
export function countingFormat(path: string): SpokenFormat | undefined {
  return countingRouteOf(path)?.format
}

/** Whether a path lists models (`GET /v1/models`, Gemini's `/v1beta/models`). */
export function isModelListPath(path: string): boolean {
  return path === "/v1/models" || path === "/models" || /^\/(v1|v1beta|v1alpha)\/models$/.test(path)
}
