/**
 * Errors in the client's own shape: every refusal and every upstream failure goes back as the error body,
 * status and headers the client's official SDK reads, through the client format's `encodeError`. A context
 * overflow keeps a message the client recognizes as one, so its own compaction runs; `retry-after` is kept.
 */
import { PromptlineError } from "../errors.js"
import { ProviderError } from "../providers/errors.js"
import { formatModule, type SpokenFormat } from "../providers/formats.js"
import type { ErrorInput, ErrorResponse } from "../providers/types.js"

/** A gateway failure to answer in the client's shape. */
export class GatewayError extends PromptlineError {
  constructor(
    readonly input: ErrorInput,
    /** The HTTP status, when it is not the one the kind implies (413 for a body over the limit, 415, 405). */
    readonly status?: number,
  ) {
    super(`gateway-${input.kind}`, input.message)
  }
}

/** The error answer for a client of `format`. */
export function errorAnswer(format: SpokenFormat, input: ErrorInput, status?: number): ErrorResponse {
  const module = formatModule(format)
  const answer = module.encodeError(input)
  const headers = { ...answer.headers }
  if (input.retryAfterMs !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === "retry-after"))
    headers["retry-after"] = String(Math.max(0, Math.ceil(input.retryAfterMs / 1000)))
  return { ...answer, headers, status: status ?? answer.status }
}

/**
 * A thrown error as an error input and status, both transports alike: a GatewayError as it says, a provider's
 * failure as its kind, any other promptline error as the client's bad request (translating met something in the
 * client's body it cannot send on, such as an invalid context-management option), anything else as a server error.
 */
export function errorInputOf(error: unknown): { input: ErrorInput; status?: number } {
  if (error instanceof GatewayError) return { input: error.input, ...(error.status ? { status: error.status } : {}) }
  if (error instanceof ProviderError) {
    const input: ErrorInput = { kind: error.kind, message: error.message }
    if (error.retryAfterMs !== undefined) input.retryAfterMs = error.retryAfterMs
    return { input }
  }
  if (error instanceof PromptlineError) {
    const option = (error as { option?: unknown }).option
    return {
      input: {
        kind: "invalid-request",
        message: error.message,
        ...(typeof option === "string" ? { param: option } : {}),
      },
    }
  }
  return { input: { kind: "server", message: `the gateway failed: ${(error as Error)?.message ?? String(error)}` } }
}
