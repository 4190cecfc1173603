import {
  checkOpenAIResponsesRequest,
  openAIResponsesToolNames,
  responsesItemSide,
} from "../providers/openai-responses/request-shape.js"
import { splitText } from "./chunk.js"
import type { FormatHandler, TurnRender } from "./format.js"
import { openAIError } from "./openai-chat.js"
import type { ResolvedTurn, ResolvedUsage } from "./resolve.js"
import {
  asArray,
  asRecord,
  asString,
  contentText,
  lastTurnOf,
  type RequestView,
  type ToolResultView,
  toolResultView,
} from "./view.js"

/** OpenAI Responses (`POST /v1/responses`, and the same events over its WebSocket mode). */

/** The Responses API's own checks (every message role, custom and namespaced tools included). */
const check = checkOpenAIResponsesRequest

function view(body: Record<string, unknown>, names: ReadonlyMap<string, string>): RequestView {
  const items = typeof body.input === "string" ? [{ role: "user", content: body.input }] : asArray(body.input)
  const records = items.map((x) => asRecord(x) ?? {})
  const known = new Map(names)
  for (const item of records) {
    const call = item.type === "function_call" || item.type === "custom_tool_call"
    if (call && typeof item.call_id === "string" && typeof item.name === "string") known.set(item.call_id, item.name)
  }
  const isModel = (item: Record<string, unknown>) => {
    const side = responsesItemSide(item)
    return side === "model" || (side === "message" && item.role === "assistant")
  }
  let lastModel = -1
  records.forEach((item, i) => {
    if (isModel(item)) lastModel = i
  })
  const texts: string[] = []
  const toolResults: ToolResultView[] = []
  for (const item of records.slice(lastModel + 1)) {
    if (responsesItemSide(item) === "tool-result") {
      const output = typeof item.output === "string" || Array.isArray(item.output) ? item.output : undefined
      const text = output === undefined ? JSON.stringify(item.output ?? null) : contentText(output)
      toolResults.push(toolResultView(text, asString(item.call_id), known))
    } else if (item.role === "user") texts.push(contentText(item.content))
  }
  const lastTurn = lastTurnOf(texts, toolResults)
  const system = [
    asString(body.instructions) ?? "",
    ...records.filter((m) => m.role === "system" || m.role === "developer").map((m) => contentText(m.content)),
  ]
    .filter((s) => s !== "")
    .join("\n\n")
  const tools = openAIResponsesToolNames(body)
  const reasoning = asRecord(body.reasoning)
  const result: RequestView = {
    format: "openai-responses",
    model: asString(body.model) ?? "",
    stream: body.stream === true,
    system,
    tools,
    dialect: tools.length > 0 ? "native" : "xml",
    lastTurn,
    reasoning: {
      visible: true,
      summary: typeof reasoning?.summary === "string",
      encrypted: asArray(body.include).includes("reasoning.encrypted_content"),
    },
    store: body.store !== false,
  }
  const previous = asString(body.previous_response_id)
  if (previous !== undefined) result.previousResponseId = previous
  return result
}

function usage(u: ResolvedUsage) {
  const input = u.input + u.cacheRead + u.cacheWrite
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: u.cacheRead },
    output_tokens: u.output,
    output_tokens_details: { reasoning_tokens: u.reasoning },
    total_tokens: input + u.output,
  }
}

/** The `response` object the events carry, in a given state. */
export function responseObject(
  id: string,
  body: Record<string, unknown>,
  created: number,
  state: { status: string; output: unknown[]; usage: unknown; incomplete?: string },
): Record<string, unknown> {
  const reasoning = asRecord(body.reasoning)
  return {
    id,
    object: "response",
    created_at: created,
    status: state.status,
    background: false,
    error: null,
    incomplete_details: state.incomplete ? { reason: state.incomplete } : null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    model: body.model,
    output: state.output,
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: body.previous_response_id ?? null,
    reasoning: { effort: reasoning?.effort ?? null, summary: reasoning?.summary ?? null },
    store: body.store ?? true,
    temperature: body.temperature ?? 1,
    text: body.text ?? { format: { type: "text" } },
    tool_choice: body.tool_choice ?? "auto",
    tools: body.tools ?? [],
    top_p: body.top_p ?? 1,
    truncation: body.truncation ?? "disabled",
    usage: state.usage,
    user: null,
    metadata: body.metadata ?? {},
  }
}

/** The id of the response that answers a turn. */
export const responseId = (turn: Pick<ResolvedTurn, "index">) => `resp_replay_${turn.index}`

function events({ turn, view, body, created, chunkSize }: TurnRender): unknown[] {
  const out: Record<string, unknown>[] = []
  const emit = (event: Record<string, unknown>) => out.push({ ...event, sequence_number: out.length })
  const id = responseId(turn)
  const output: unknown[] = []
  emit({
    type: "response.created",
    response: responseObject(id, body, created, { status: "in_progress", output: [], usage: null }),
  })
  emit({
    type: "response.in_progress",
    response: responseObject(id, body, created, { status: "in_progress", output: [], usage: null }),
  })
  if (turn.thinking !== undefined) {
    const output_index = output.length
    const item_id = `rs_replay_${turn.index}`
    const base: Record<string, unknown> = { id: item_id, type: "reasoning", summary: [] }
    if (view.reasoning.encrypted) base.encrypted_content = turn.signature
    emit({ type: "response.output_item.added", output_index, item: base })
    const summary = view.reasoning.summary ? [{ type: "summary_text", text: turn.thinking }] : []
    if (view.reasoning.summary) {
      const at = { item_id, output_index, summary_index: 0 }
      emit({ type: "response.reasoning_summary_part.added", ...at, part: { type: "summary_text", text: "" } })
      for (const delta of splitText(turn.thinking, chunkSize))
        emit({ type: "response.reasoning_summary_text.delta", ...at, delta })
      emit({ type: "response.reasoning_summary_text.done", ...at, text: turn.thinking })
      emit({ type: "response.reasoning_summary_part.done", ...at, part: summary[0] })
    }
    const item = { ...base, summary }
    emit({ type: "response.output_item.done", output_index, item })
    output.push(item)
  }
  if (turn.text !== "") {
    const output_index = output.length
    const item_id = `msg_replay_${turn.index}`
    const refusal = turn.stop === "refusal"
    const empty = refusal
      ? { type: "refusal", refusal: "" }
      : { type: "output_text", annotations: [], logprobs: [], text: "" }
    const part = refusal ? { type: "refusal", refusal: turn.text } : { ...empty, text: turn.text }
    const message = { id: item_id, type: "message", status: "in_progress", content: [], role: "assistant" }
    emit({ type: "response.output_item.added", output_index, item: message })
    const at = { item_id, output_index, content_index: 0 }
    emit({ type: "response.content_part.added", ...at, part: empty })
    for (const delta of splitText(turn.text, chunkSize))
      emit(
        refusal
          ? { type: "response.refusal.delta", ...at, delta }
          : { type: "response.output_text.delta", ...at, delta, logprobs: [] },
      )
    emit(
      refusal
        ? { type: "response.refusal.done", ...at, refusal: turn.text }
        : { type: "response.output_text.done", ...at, text: turn.text, logprobs: [] },
    )
    emit({ type: "response.content_part.done", ...at, part })
    const item = { ...message, status: "completed", content: [part] }
    emit({ type: "response.output_item.done", output_index, item })
    output.push(item)
  }
  turn.calls.forEach((call, i) => {
    const output_index = output.length
    const item_id = `fc_replay_${turn.index}_${i}`
    const started = {
      id: item_id,
      type: "function_call",
      status: "in_progress",
      arguments: "",
      call_id: call.id,
      name: call.name,
    }
    emit({ type: "response.output_item.added", output_index, item: started })
    for (const delta of splitText(call.arguments, chunkSize))
      emit({ type: "response.function_call_arguments.delta", item_id, output_index, delta })
    emit({ type: "response.function_call_arguments.done", item_id, output_index, arguments: call.arguments })
    const item = { ...started, status: "completed", arguments: call.arguments }
    emit({ type: "response.output_item.done", output_index, item })
    output.push(item)
  })
  const finished = final(turn, body, created, output)
  emit({ type: finished.status === "incomplete" ? "response.incomplete" : "response.completed", response: finished })
  return out
}

function final(turn: ResolvedTurn, body: Record<string, unknown>, created: number, output: unknown[]) {
  const incomplete = turn.stop === "length"
  return responseObject(responseId(turn), body, created, {
    status: incomplete ? "incomplete" : "completed",
    output,
    usage: usage(turn.usage),
    ...(incomplete ? { incomplete: "max_output_tokens" } : {}),
  })
}

function complete(render: TurnRender): unknown {
  const evs = events(render)
  return asRecord(evs[evs.length - 1])?.response
}

/** The OpenAI Responses handler. */
export const openAIResponsesFormat: FormatHandler = {
  format: "openai-responses",
  callIdPrefix: "call_replay_",
  check,
  view,
  events,
  sse: (evs) => evs.map((e) => `event: ${String(asRecord(e)?.type)}\ndata: ${JSON.stringify(e)}\n\n`),
  complete,
  error: (failure) =>
    openAIError(failure, {
      message: "Your input exceeds the context window of this model. Please adjust your input and try again.",
      param: "input",
    }),
}
