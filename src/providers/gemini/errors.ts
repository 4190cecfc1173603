/**
 * Error answers in Google's shape: `{error: {code, message, status}}` with the HTTP status in `code` and the
 * canonical gRPC status name in `status`. A rate limit names its wait twice, as a `google.rpc.RetryInfo` detail
 * and a `retry-after` header; a context overflow says it in Gemini's own words, so clients that watch for them
 * (and promptline's own classifier) see an overflow.
 */
import type { ErrorInput, ErrorResponse } from "../types.js"

/** HTTP status and gRPC status name per error kind. */
const STATUS: Record<ErrorInput["kind"], [number, string]> = {
  "context-overflow": [400, "INVALID_ARGUMENT"],
  "invalid-request": [400, "INVALID_ARGUMENT"],
  auth: [401, "UNAUTHENTICATED"],
  "not-found": [404, "NOT_FOUND"],
  "rate-limit": [429, "RESOURCE_EXHAUSTED"],
  quota: [429, "RESOURCE_EXHAUSTED"],
  server: [500, "INTERNAL"],
  network: [503, "UNAVAILABLE"],
  overloaded: [503, "UNAVAILABLE"],
}

const GEMINI_OVERFLOW = /input token count.*exceeds the maximum number of tokens allowed/i

/**
 * An overflow message in Gemini's wording. Another provider's message that names two counts keeps them (the larger
 * as the input count, the smaller as the limit: an overflow's count exceeds its limit); otherwise the original
 * follows the sentence.
 */
export function geminiOverflowMessage(message: string): string {
  if (GEMINI_OVERFLOW.test(message)) return message
  const [a, b] = [...message.matchAll(/\d+/g)].map((m) => Number(m[0])).filter((n) => n >= 1000)
  if (a !== undefined && b !== undefined && a !== b)
    return `The input token count (${Math.max(a, b)}) exceeds the maximum number of tokens allowed (${Math.min(a, b)}).`
  return `The input token count exceeds the maximum number of tokens allowed. ${message}`.trim()
}

/** The error body (`{error: {...}}`) of an error, as Gemini writes it in an answer or inside a stream. */
export function geminiErrorBody(error: ErrorInput): Record<string, unknown> {
  const [code, status] = STATUS[error.kind]
  const message = error.kind === "context-overflow" ? geminiOverflowMessage(error.message) : error.message
  const body: Record<string, unknown> = { code, message, status }
  if (error.retryAfterMs !== undefined)
    body.details = [
      { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: `${Math.ceil(error.retryAfterMs / 1000)}s` },
    ]
  return { error: body }
}

/** An error answer: Google's body, its HTTP status, and `retry-after` (whole seconds) when a wait is known. */
export function encodeGeminiError(error: ErrorInput): ErrorResponse {
  const headers: Record<string, string> = {}
  if (error.retryAfterMs !== undefined) headers["retry-after"] = String(Math.ceil(error.retryAfterMs / 1000))
  return { status: STATUS[error.kind][0], headers, body: geminiErrorBody(error) }
}
