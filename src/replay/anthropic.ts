import { anthropicFormat as anthropicModule } from "../providers/anthropic/index.js"
import { ANTHROPIC_REQUEST_FIELDS, checkAnthropicRequest } from "../providers/anthropic/request-shape.js"
import {
  type AnthropicStreamPayload,
  AnthropicStreamWriter,
  frameAnthropicEvent,
} from "../providers/anthropic/stream-encode.js"
import { unknownFields } from "../providers/request-shape.js"
import type { StreamEvent } from "../providers/stream.js"
import { type ErrorAnswer, FAILURE_KINDS, type Failure, type FormatHandler, type TurnRender } from "./format.js"
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

/** The Anthropic Messages API (`POST /v1/messages`) as the replay server speaks it. */

/** The Messages API's own checks (system messages inside `messages` included). */
const check = checkAnthropicRequest

function view(body: Record<string, unknown>, names: ReadonlyMap<string, string>): RequestView {
  const messages = asArray(body.messages).map((m) => asRecord(m) ?? {})
  const known = new Map(names)
  for (const m of messages) {
    if (m.role !== "assistant") continue
    for (const b of asArray(m.content).map(asRecord)) {
      if (b?.type === "tool_use" && typeof b.id === "string" && typeof b.name === "string") known.set(b.id, b.name)
    }
  }
  const lastAssistant = messages.map((m) => m.role).lastIndexOf("assistant")
  const texts: string[] = []
  const toolResults: ToolResultView[] = []
  for (const m of messages.slice(lastAssistant + 1)) {
    // A mid-conversation system message is no user text; it counts as system prompt below.
    if (m.role === "system") continue
    if (typeof m.content === "string") texts.push(m.content)
    for (const b of asArray(m.content).map((x) => asRecord(x) ?? {})) {
      if (b.type === "text" && typeof b.text === "string") texts.push(b.text)
      if (b.type === "tool_result") {
        toolResults.push(toolResultView(contentText(b.content), asString(b.tool_use_id), known, b.is_error === true))
      }
    }
  }
  const lastTurn = lastTurnOf(texts, toolResults)
  const tools = asArray(body.tools)
    .map((t) => asString(asRecord(t)?.name))
    .filter((n): n is string => n !== undefined)
  const thinking = asString(asRecord(body.thinking)?.type)
  const visible = thinking === "enabled" || thinking === "adaptive"
  return {
    format: "anthropic",
    model: asString(body.model) ?? "",
    stream: body.stream === true,
    system: [
      contentText(body.system),
      ...messages.filter((m) => m.role === "system").map((m) => contentText(m.content)),
    ]
      .filter((s) => s !== "")
      .join("\n\n"),
    tools,
    dialect: tools.length > 0 ? "native" : "xml",
    lastTurn,
    reasoning: { visible, summary: visible, encrypted: false },
  }
}

/**
 * The stream events of a turn: the input figures are known when the answer starts, as the API reports them.
 * Reasoning tokens are left out, as in the recorded streams the replay's answers are checked against.
 */
function turnStream({ turn, view, chunkSize }: TurnRender): StreamEvent[] {
  const events = turnEvents(turn, {
    id: `msg_replay_${turn.index}`,
    model: view.model,
    chunkSize,
    thinking: view.reasoning.visible,
    format: "anthropic",
  }).map((e): StreamEvent => {
    if (e.type !== "usage") return e
    const { reasoning: _, ...usage } = e
    return usage
  })
  const { input, cacheRead, cacheWrite } = turn.usage
  return [events[0]!, { type: "usage", input, output: 1, cacheRead, cacheWrite }, ...events.slice(1)]
}

const encodeOptions = ({ turn, view }: TurnRender) => ({ model: view.model, id: `msg_replay_${turn.index}` })

/** The payloads of the streamed answer, written by the format module's stream writer. */
function events(render: TurnRender): unknown[] {
  const writer = new AnthropicStreamWriter(encodeOptions(render))
  return [...turnStream(render).flatMap((e) => writer.push(e)), ...writer.end()]
}

function complete(render: TurnRender): unknown {
  return anthropicModule.encodeResponse(turnStream(render), encodeOptions(render))
}

function error(failure: Failure): ErrorAnswer {
  const answer = anthropicModule.encodeError({
    kind: FAILURE_KINDS[failure.kind],
    // An injected overflow names sizes, as the API's own overflow message does.
    message:
      failure.kind === "context-overflow" ? "prompt is too long: 212345 tokens > 200000 maximum" : failure.message,
    ...(failure.kind === "rate-limit" ? { retryAfterMs: (failure.retryAfter ?? 1) * 1000 } : {}),
  })
  return { ...answer, body: { ...(answer.body as object), request_id: "req_replay" } }
}

/** The Anthropic Messages handler. */
export const anthropicFormat: FormatHandler = {
  format: "anthropic",
  callIdPrefix: "toolu_replay_",
  check,
  unknownFields: (body) => unknownFields(body, ANTHROPIC_REQUEST_FIELDS),
  view,
  events,
  sse: (evs) => evs.map((e) => frameAnthropicEvent(e as AnthropicStreamPayload)),
  complete,
  error,
}
