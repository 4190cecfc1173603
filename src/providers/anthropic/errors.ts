/**
 * Errors in the Messages API's shape: the envelope `{type: "error", error: {type, message}}`, the status the
 * API uses for each kind (529 for overloaded), `retry-after` in seconds, and a context overflow worded as the
 * API words it, so Claude clients recognize it and compact.
 */
import type { StreamErrorKind } from "../stream.js"
import type { ErrorInput, ErrorResponse } from "../types.js"

/** The error kinds an Anthropic error answer may stand for. */
export type AnthropicErrorKind = ErrorInput["kind"] | StreamErrorKind

/** Each kind's HTTP status and Anthropic error type. */
const ERRORS: Record<AnthropicErrorKind, [number, string]> = {
  "invalid-request": [400, "invalid_request_error"],
  "context-overflow": [400, "invalid_request_error"],
  auth: [401, "authentication_error"],
  quota: [402, "billing_error"],
  "not-found": [404, "not_found_error"],
  "rate-limit": [429, "rate_limit_error"],
  server: [500, "api_error"],
  network: [502, "api_error"],
  overloaded: [529, "overloaded_error"],
  truncated: [502, "api_error"],
  "partial-call": [502, "api_error"],
  "invalid-arguments": [502, "api_error"],
  malformed: [502, "api_error"],
}

/** The error types of the Messages API. */
const ERROR_TYPES = new Set([
  "invalid_request_error",
  "authentication_error",
  "billing_error",
  "permission_error",
  "not_found_error",
  "request_too_large",
  "rate_limit_error",
  "api_error",
  "timeout_error",
  "overloaded_error",
])

/**
 * The Anthropic error type of an error: the one its message opens with when it came from an Anthropic error
 * (`overloaded_error: Overloaded`, as the decoder words it), else the one of its kind.
 */
export function anthropicErrorType(kind: AnthropicErrorKind | undefined, message = ""): string {
  const named = /^([a-z_]+): /.exec(message)?.[1]
  if (named !== undefined && ERROR_TYPES.has(named)) return named
  return ERRORS[kind ?? "server"]?.[1] ?? "api_error"
}

/**
 * Where other providers' overflow messages put the prompt's size (`n`) and the window (`m`); `extra` is an
 * output reservation counted into the size (Anthropic's "input length and max_tokens exceed context limit").
 */
const OVERFLOW_SIZES: readonly RegExp[] = [
  /prompt is too long: (?<n>\d+) tokens > (?<m>\d+) maximum/i,
  /exceed context limit: (?<n>\d+) \+ (?<extra>\d+) > (?<m>\d+)/i,
  /maximum context length is (?<m>\d+) tokens.*?(?:resulted in|requested(?: about)?) (?<n>\d+) tokens/is,
  /input token count \((?<n>\d+)\) exceeds the maximum number of tokens allowed \((?<m>\d+)\)/i,
  /total length (?<n>\d+)\) is too long to fit into the model \(context length (?<m>\d+)\)/i,
  /prompt token count of (?<n>\d+) exceeds the limit of (?<m>\d+)/i,
]

/**
 * A context overflow as the Messages API words it: `prompt is too long: N tokens > M maximum` (what Claude
 * clients match to start compaction), with the sizes read from the upstream's message when it names them; a
 * message that names no sizes keeps its text after the same `prompt is too long: ` opening.
 */
export function anthropicOverflowMessage(message: string): string {
  for (const pattern of OVERFLOW_SIZES) {
    const groups = pattern.exec(message)?.groups
    if (!groups?.n || !groups.m) continue
    const n = Number(groups.n) + Number(groups.extra ?? 0)
    return `prompt is too long: ${n} tokens > ${groups.m} maximum`
  }
  return /^prompt is too long/i.test(message) ? message : `prompt is too long: ${message}`
}

/** An error answer in the Messages API's shape and status. */
export function encodeAnthropicError(error: ErrorInput): ErrorResponse {
  const [status, type] = ERRORS[error.kind] ?? [500, "api_error"]
  const message = error.kind === "context-overflow" ? anthropicOverflowMessage(error.message) : error.message
  const headers: Record<string, string> = {}
  if (error.retryAfterMs !== undefined)
    headers["retry-after"] = String(Math.max(0, Math.ceil(error.retryAfterMs / 1000)))
  return { status, headers, body: { type: "error", error: { type, message } } }
}
