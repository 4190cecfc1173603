import { PromptlineError } from "../../errors.js"
import type { CompactionBlock } from "../../history/message.js"
import { type Endpoint, requestUrl } from "../../providers/endpoints.js"
import { compactionFromItem } from "../../providers/openai-responses/compaction.js"
import { postJson } from "../../providers/post-json.js"
import { obj } from "../../providers/stream.js"

/**
 * OpenAI's standalone compaction: `POST /v1/responses/compact` takes the model, the input items and the
 * instructions of a Responses request and answers `{ object: "response.compaction", output, usage }`, where
 * `output` holds the user messages followed by one `compaction` item (opaque `encrypted_content`).
 */

/** Body fields the compact endpoint takes from a Responses request body; the rest describe the answer. */
const COMPACT_FIELDS = ["model", "input", "instructions", "previous_response_id", "prompt_cache_key"] as const

/** What the compact endpoint answered: the compaction item and the tokens the pass took. */
export interface CompactResult {
  compaction: CompactionBlock
  /** The output items as sent (user messages, then the compaction item). */
  output: unknown[]
  usage: { input: number; output: number }
}

/** The compact endpoint's URL and body for an encoded Responses request body. */
export function compactRequest(endpoint: Endpoint, body: Record<string, unknown>): { url: string; body: unknown } {
  const model = typeof body.model === "string" ? body.model : ""
  const url = `${requestUrl(endpoint, model, { format: "openai-responses", stream: false })}/compact`
  const out: Record<string, unknown> = {}
  for (const field of COMPACT_FIELDS) if (body[field] !== undefined) out[field] = body[field]
  return { url, body: out }
}

/** Asks OpenAI to compact an encoded Responses request's input; typed errors as for `send`. */
export async function compactResponses(
  endpoint: Endpoint,
  request: { body: Record<string, unknown>; provider?: string; signal?: AbortSignal; fetch?: typeof fetch },
): Promise<CompactResult> {
  const { url, body } = compactRequest(endpoint, request.body)
  const data = await postJson(endpoint, url, body, request)
  const output = Array.isArray(data?.output) ? data.output : []
  const item = output.map((o) => obj(o)).findLast((o) => o?.type === "compaction")
  const block = item ? compactionFromItem(item) : undefined
  if (!block) throw new PromptlineError("compact-invalid", `${url} answered without a compaction item`)
  const usage = obj(data?.usage)
  return {
    compaction: request.provider ? { ...block, provider: request.provider } : block,
    output,
    usage: {
      input: typeof usage?.input_tokens === "number" ? usage.input_tokens : 0,
      output: typeof usage?.output_tokens === "number" ? usage.output_tokens : 0,
    },
  }
}
