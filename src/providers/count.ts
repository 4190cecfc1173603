import { PromptlineError } from "../errors.js"
import type { CountingEndpoint, WireFormatDescriptor } from "./descriptor.js"
import { descriptorOf, type WireFormat } from "./descriptors.js"
import { type Endpoint, requestUrl } from "./endpoints.js"
import { postJson } from "./post-json.js"

/**
 * Exact prompt-token counts from a provider's counting endpoint, for the request as it would be sent:
 * Anthropic `POST /v1/messages/count_tokens` (answers `input_tokens`), OpenAI `POST /v1/responses/input_tokens`
 * (answers `input_tokens`), Gemini `POST /v1beta/models/{model}:countTokens` (answers `totalTokens`).
 */

/** Whether a wire format's provider has a counting endpoint (its descriptor has `counting`), built-in or registered. */
export function hasCountingEndpoint(format: WireFormat): boolean {
  return (descriptorOf(format) as WireFormatDescriptor).counting !== undefined
}

/** The counting endpoint's URL and body for an encoded request. */
export function countingRequest(
  endpoint: Endpoint,
  format: WireFormat,
  model: string,
  body: Record<string, unknown>,
): { url: string; body: unknown } {
  const counting = countingOf(format)
  return counting.request(requestUrl(endpoint, model, { format, stream: false }), body, model)
}

/** A format's counting endpoint, or a typed error when its provider has none. */
function countingOf(format: WireFormat): CountingEndpoint {
  const counting = (descriptorOf(format) as WireFormatDescriptor).counting
  if (!counting)
    throw new PromptlineError("count-unsupported", `the ${format} wire format has no token-counting endpoint`)
  return counting
}

/** Asks the provider how many prompt tokens an encoded request holds; typed errors as for `send`. */
export async function countTokens(
  endpoint: Endpoint,
  request: {
    format: WireFormat
    model: string
    body: Record<string, unknown>
    signal?: AbortSignal
    fetch?: typeof fetch
  },
): Promise<number> {
  const { url, body } = countingRequest(endpoint, request.format, request.model, request.body)
  const data = await postJson(endpoint, url, body, request)
  const count = countingOf(request.format).tokens(data)
  if (typeof count !== "number" || !Number.isFinite(count) || count < 0)
    throw new PromptlineError("count-invalid", `${url} answered without a token count`)
  return count
}
