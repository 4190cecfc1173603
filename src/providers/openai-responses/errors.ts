/**
 * OpenAI's error shape for the Responses API: `{error: {message, type, param, code}}` with its HTTP status, and
 * the same fields inside a stream's `error` event. A context overflow carries the code and the wording OpenAI's own
 * clients read as overflow (`context_length_exceeded`), so their compaction runs.
 */
import { retryAfterInText } from "../errors.js"
import type { StreamErrorKind } from "../stream.js"
import type { ErrorInput, ErrorResponse } from "../types.js"

/** The message OpenAI sends when the input does not fit the model's context window. */
export const RESPONSES_OVERFLOW_MESSAGE =
  "Your input exceeds the context window of this model. Please adjust your input and try again."

/** An error for a Responses client; `code` overrides the code the kind implies (`previous_response_not_found`). */
export interface ResponsesErrorInput extends ErrorInput {
  code?: string
}

/** The body fields of an OpenAI error. */
export interface OpenAIErrorFields {
  message: string
  type: string
  param: string | null
  code: string | null
}

type Kind = ErrorInput["kind"] | StreamErrorKind

/** Status, type and code of each kind, as OpenAI reports them. */
const SHAPES: Record<Kind, [status: number, type: string, code: string | null]> = {
  "invalid-request": [400, "invalid_request_error", null],
  "context-overflow": [400, "invalid_request_error", "context_length_exceeded"],
  auth: [401, "invalid_request_error", "invalid_api_key"],
  "not-found": [404, "invalid_request_error", null],
  "rate-limit": [429, "requests", "rate_limit_exceeded"],
  quota: [429, "insufficient_quota", "insufficient_quota"],
  server: [500, "server_error", null],
  network: [502, "server_error", null],
  overloaded: [503, "server_error", "overloaded"],
  truncated: [502, "server_error", null],
  malformed: [502, "server_error", null],
  "partial-call": [502, "server_error", null],
  "invalid-arguments": [502, "server_error", null],
}

/** The error fields for a kind and message; a wait is written into the message the way OpenAI words it. */
export function openAIErrorFields(
  kind: Kind,
  message: string,
  options: { retryAfterMs?: number; param?: string; code?: string } = {},
): OpenAIErrorFields {
  const [, type, code] = SHAPES[kind]
  let text = kind === "context-overflow" ? RESPONSES_OVERFLOW_MESSAGE : message
  if (options.retryAfterMs !== undefined && retryAfterInText(text) === undefined)
    text = `${text} Please try again in ${options.retryAfterMs / 1000}s.`
  const param = options.param ?? (kind === "context-overflow" ? "input" : null)
  return { message: text, type, param, code: options.code ?? code }
}

/** An error answer for a Responses client: OpenAI's body and status, and `retry-after` in whole seconds. */
export function encodeResponsesError(error: ResponsesErrorInput): ErrorResponse {
  const [status] = SHAPES[error.kind]
  const headers: Record<string, string> = {}
  if (error.retryAfterMs !== undefined) headers["retry-after"] = String(Math.ceil(error.retryAfterMs / 1000))
  const fields = openAIErrorFields(error.kind, error.message, { param: error.param, code: error.code })
  return { status, headers, body: { error: fields } }
}
