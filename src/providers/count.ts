import { PromptlineError } from "../errors.js"
import type { WireFormat } from "../models/types.js"
import { type Endpoint, requestUrl } from "./endpoints.js"
import { postJson } from "./post-json.js"

/**
 * Exact prompt-token counts from a provider's counting endpoint, for the request as it would be sent:
 * Anthropic `POST /v1/messages/count_tokens` (answers `input_tokens`), OpenAI `POST /v1/responses/input_tokens`
 * (answers `input_tokens`), Gemini `POST /v1beta/models/{model}:countTokens` (answers `totalTokens`).
 */

/** The wire formats whose provider has a counting endpoint. */
export const COUNTING_FORMATS: readonly WireFormat[] = ["anthropic", "openai-responses", "gemini"]

/** Body fields the counting endpoints do not take (they describe the answer, not the prompt). */
const ANSWER_FIELDS: Readonly<Partial<Record<WireFormat, readonly string[]>>> = {
  anthropic: ["stream", "max_tokens", "temperature", "top_p", "top_k", "stop_sequences", "metadata", "service_tier"],
  "openai-responses": [
    "stream",
    "stream_options",
    "store",
    "max_output_tokens",
    "temperature",
    "top_p",
    "prompt_cache_key",
    "prompt_cache_retention",
    "include",
    "metadata",
    "service_tier",
    "safety_identifier",
    "generate",
  ],
}

/** The counting endpoint's URL and body for an encoded request. */
export function countingRequest(
  endpoint: Endpoint,
  format: WireFormat,
  model: string,
  body: Record<string, unknown>,
): { url: string; body: unknown } {
  if (!COUNTING_FORMATS.includes(format))
    throw new PromptlineError("count-unsupported", `the ${format} wire format has no token-counting endpoint`)
  const url = requestUrl(endpoint, model, { format, stream: false })
  if (format === "gemini") {
    const name = model.replace(/^models\//, "")
    return {
      url: url.replace(/:(stream)?[gG]enerateContent(\?.*)?$/, ":countTokens"),
      body: { generateContentRequest: { model: `models/${name}`, ...body } },
    }
  }
  const rest = { ...body }
  for (const field of ANSWER_FIELDS[format] ?? []) delete rest[field]
  return { url: `${url}${format === "anthropic" ? "/count_tokens" : "/input_tokens"}`, body: rest }
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
  const count = request.format === "gemini" ? data?.totalTokens : data?.input_tokens
  if (typeof count !== "number" || !Number.isFinite(count) || count < 0)
    throw new PromptlineError("count-invalid", `${url} answered without a token count`)
  return count
}
