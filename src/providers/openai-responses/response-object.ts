/**
 * The Responses API's `response` object, as the stream's created / completed events and a whole answer carry it:
 * the state of the response, with the request's settings echoed the way OpenAI echoes them.
 */
import { obj, type Usage } from "../stream.js"

/** The state of a response at one point of its stream. */
export interface ResponseState {
  status: "in_progress" | "completed" | "incomplete" | "failed"
  output: unknown[]
  usage: unknown
  /** `incomplete_details.reason` of an incomplete response. */
  incomplete?: string
  /** `error` of a failed response. */
  error?: { code: string; message: string }
}

/** The `response` object with id `id` for a request `request` (its settings echoed), in a given state. */
export function responseObject(
  id: string,
  model: string,
  request: Record<string, unknown>,
  created: number,
  state: ResponseState,
): Record<string, unknown> {
  const reasoning = obj(request.reasoning)
  return {
    id,
    object: "response",
    created_at: created,
    status: state.status,
    background: false,
    error: state.error ?? null,
    incomplete_details: state.incomplete ? { reason: state.incomplete } : null,
    instructions: request.instructions ?? null,
    max_output_tokens: request.max_output_tokens ?? null,
    model,
    output: state.output,
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    previous_response_id: request.previous_response_id ?? null,
    reasoning: { effort: reasoning?.effort ?? null, summary: reasoning?.summary ?? null },
    store: request.store ?? true,
    temperature: request.temperature ?? 1,
    text: request.text ?? { format: { type: "text" } },
    tool_choice: request.tool_choice ?? "auto",
    tools: request.tools ?? [],
    top_p: request.top_p ?? 1,
    truncation: request.truncation ?? "disabled",
    usage: state.usage,
    user: null,
    metadata: request.metadata ?? {},
  }
}

/** Our usage as the Responses `usage` object: `input_tokens` includes cache reads (and writes, which it cannot name). */
export function responsesUsageObject(usage: Usage): Record<string, unknown> {
  const input = usage.input + usage.cacheRead + usage.cacheWrite
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: usage.cacheRead },
    output_tokens: usage.output,
    output_tokens_details: { reasoning_tokens: usage.reasoning ?? 0 },
    total_tokens: input + usage.output,
  }
}
