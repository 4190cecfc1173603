/**
 * Error shapes for client formats whose module has no `encodeError` yet (the serving half of each format
 * module lands format by format). Each follows the provider's documented error body; a format module's own
 * `encodeError` always wins over these.
 */
import { OVERFLOW_MESSAGES } from "../providers/errors.js"
import type { SpokenFormat } from "../providers/formats.js"
import type { ErrorInput, ErrorResponse } from "../providers/types.js"

type Kind = ErrorInput["kind"]

const overflowText = (provider: string) => OVERFLOW_MESSAGES.find((m) => m.provider === provider)!.example

/** Anthropic's status and error type per kind. */
const ANTHROPIC: Record<Kind, [number, string]> = {
  "invalid-request": [400, "invalid_request_error"],
  "context-overflow": [400, "invalid_request_error"],
  "not-found": [404, "not_found_error"],
  auth: [401, "authentication_error"],
  quota: [400, "invalid_request_error"],
  "rate-limit": [429, "rate_limit_error"],
  overloaded: [529, "overloaded_error"],
  server: [502, "api_error"],
  network: [502, "api_error"],
}

/** OpenAI's status, type and code per kind. */
const OPENAI: Record<Kind, [number, string, string | null]> = {
  "invalid-request": [400, "invalid_request_error", null],
  "context-overflow": [400, "invalid_request_error", "context_length_exceeded"],
  "not-found": [404, "invalid_request_error", "model_not_found"],
  auth: [401, "invalid_request_error", "invalid_api_key"],
  quota: [429, "insufficient_quota", "insufficient_quota"],
  "rate-limit": [429, "requests", "rate_limit_exceeded"],
  overloaded: [503, "server_error", "overloaded"],
  server: [502, "server_error", null],
  network: [502, "server_error", null],
}

/** Google's status code and status name per kind. */
const GOOGLE: Record<Kind, [number, string]> = {
  "invalid-request": [400, "INVALID_ARGUMENT"],
  "context-overflow": [400, "INVALID_ARGUMENT"],
  "not-found": [404, "NOT_FOUND"],
  auth: [401, "UNAUTHENTICATED"],
  quota: [429, "RESOURCE_EXHAUSTED"],
  "rate-limit": [429, "RESOURCE_EXHAUSTED"],
  overloaded: [503, "UNAVAILABLE"],
  server: [502, "INTERNAL"],
  network: [502, "UNAVAILABLE"],
}

const retry = (input: ErrorInput): Record<string, string> =>
  input.retryAfterMs === undefined ? {} : { "retry-after": String(Math.ceil(input.retryAfterMs / 1000)) }

const openAI = (input: ErrorInput): ErrorResponse => {
  const [status, type, code] = OPENAI[input.kind]
  const message = input.kind === "context-overflow" ? overflowText("openai") : input.message
  return { status, headers: retry(input), body: { error: { message, type, param: input.param ?? null, code } } }
}

/** The fallback error shape per client format. */
export const FALLBACK_ERRORS: Record<SpokenFormat, (input: ErrorInput) => ErrorResponse> = {
  anthropic: (input) => {
    const [status, type] = ANTHROPIC[input.kind]
    const message = input.kind === "context-overflow" ? overflowText("anthropic") : input.message
    return { status, headers: retry(input), body: { type: "error", error: { type, message } } }
  },
  "openai-chat": openAI,
  "openai-responses": openAI,
  gemini: (input) => {
    const [code, status] = GOOGLE[input.kind]
    const message = input.kind === "context-overflow" ? overflowText("gemini") : input.message
    const error: Record<string, unknown> = { code, message, status }
    if (input.retryAfterMs !== undefined)
      error.details = [
        { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: `${Math.ceil(input.retryAfterMs / 1000)}s` },
      ]
    return { status: code, headers: retry(input), body: { error } }
  },
}
