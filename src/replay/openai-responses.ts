import { encodeResponsesError, type ResponsesErrorInput } from "../providers/openai-responses/errors.js"
import {
  checkOpenAIResponsesRequest,
  OPENAI_RESPONSES_REQUEST_FIELDS,
  openAIResponsesToolNames,
  responsesItemSide,
} from "../providers/openai-responses/request-shape.js"
import { ResponsesStreamEncoder } from "../providers/openai-responses/stream-encode.js"
import { unknownFields } from "../providers/request-shape.js"
import type { Failure, FormatHandler, TurnRender } from "./format.js"
import type { ResolvedTurn } from "./resolve.js"
import { turnEvents } from "./turn-events.js"
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

/** The id of the response that answers a turn. */
export const responseId = (turn: Pick<ResolvedTurn, "index">) => `resp_replay_${turn.index}`

/**
 * The turn written by the format module's stream encoder. Reasoning is an item whenever the turn thinks; its
 * summary text only when the request asked for a summary, its encrypted content only when `include` asked for it.
 */
function encoded({ turn, view, body, created, chunkSize }: TurnRender): ResponsesStreamEncoder {
  const id = responseId(turn)
  const model = typeof body.model === "string" ? body.model : ""
  const events = turnEvents(turn, {
    id,
    model,
    chunkSize,
    thinking: true,
    reasoningId: `rs_replay_${turn.index}`,
    format: "openai-responses",
  })
  const encoder = new ResponsesStreamEncoder({ model, id, created, request: body })
  for (const event of events) {
    if (event.type !== "thinking") encoder.push(event)
    else {
      const { signature, ...rest } = event
      const seen = { ...rest, delta: view.reasoning.summary ? event.delta : "" }
      encoder.push(view.reasoning.encrypted && signature !== undefined ? { ...seen, signature } : seen)
    }
  }
  encoder.end()
  return encoder
}

/** The replay's failures as Responses errors (the replay's own codes for a diverged or exhausted script). */
function error(failure: Failure) {
  const kinds: Record<Failure["kind"], [ResponsesErrorInput["kind"], string | undefined]> = {
    "invalid-request": ["invalid-request", failure.code],
    diverged: ["invalid-request", "replay_diverged"],
    exhausted: ["invalid-request", "replay_exhausted"],
    "context-overflow": ["context-overflow", undefined],
    "not-found": ["not-found", failure.code ?? "unknown_url"],
    "rate-limit": ["rate-limit", undefined],
    "server-error": ["server", undefined],
    overloaded: ["overloaded", undefined],
  }
  const [kind, code] = kinds[failure.kind]
  const input: ResponsesErrorInput = { kind, message: failure.message }
  if (code !== undefined) input.code = code
  if (failure.param !== undefined) input.param = failure.param
  if (failure.kind === "rate-limit") input.retryAfterMs = (failure.retryAfter ?? 1) * 1000
  return encodeResponsesError(input)
}

/** The OpenAI Responses handler. */
export const openAIResponsesFormat: FormatHandler = {
  format: "openai-responses",
  callIdPrefix: "call_replay_",
  check,
  // `generate: false` is the WebSocket mode's warm-up flag, part of that mode's create message.
  unknownFields: (body) => unknownFields(body, OPENAI_RESPONSES_REQUEST_FIELDS).filter((k) => k !== "generate"),
  view,
  events: (render) => encoded(render).payloads,
  sse: (evs) => evs.map((e) => `event: ${String(asRecord(e)?.type)}\ndata: ${JSON.stringify(e)}\n\n`),
  complete: (render) => encoded(render).final,
  error,
}
