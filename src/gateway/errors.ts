/**
 * Errors in the client's own shape: every refusal and every upstream failure goes back as the error body,
 * status and headers the client's official SDK reads, through the client format's `encodeError`. A context
 * overflow keeps a message the client recognizes as one, so its own compaction runs; `retry-after` is kept.
 */
import { PromptlineError } from "../errors.js"
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
