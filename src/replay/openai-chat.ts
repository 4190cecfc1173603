import { deepseekFormat } from "../providers/deepseek/index.js"
import { openAIChatFormat as chatModule } from "../providers/openai-chat/index.js"
import {
  checkOpenAIChatRequest,
  OPENAI_CHAT_REQUEST_FIELDS,
  openAIChatToolNames,
} from "../providers/openai-chat/request-shape.js"
import { unknownFields } from "../providers/request-shape.js"
import type { ErrorInput } from "../providers/types.js"
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

/**
 * OpenAI Chat Completions (`POST /v1/chat/completions`), also spoken by DeepSeek and the
 * OpenAI-compatible servers. A model id starting with `deepseek` gets DeepSeek's flavour: usage on
 * the finishing chunk (always) with its cache hit/miss fields.
 */

/** The Chat Completions API's own checks (every role, custom tools included). */
const check = checkOpenAIChatRequest

const isDeepSeek = (model: string) => model.toLowerCase().startsWith("deepseek")

function view(body: Record<string, unknown>, names: ReadonlyMap<string, string>): RequestView {
  const messages = asArray(body.messages).map((m) => asRecord(m) ?? {})
  const known = new Map(names)
  for (const m of messages) {
    for (const c of asArray(m.tool_calls).map((x) => asRecord(x) ?? {})) {
      const name = asString(asRecord(c.function)?.name)
      if (typeof c.id === "string" && name !== undefined) known.set(c.id, name)
    }
  }
  const lastAssistant = messages.map((m) => m.role).lastIndexOf("assistant")
  const texts: string[] = []
  const toolResults: ToolResultView[] = []
  for (const m of messages.slice(lastAssistant + 1)) {
    if (m.role === "tool") {
      toolResults.push(toolResultView(contentText(m.content), asString(m.tool_call_id), known))
    } else if (m.role === "function") {
      // The legacy function message names its function instead of a call id.
      const result: ToolResultView = { text: contentText(m.content) }
      const name = asString(m.name)
      if (name !== undefined) result.tool = name
      toolResults.push(result)
    } else if (m.role === "user") texts.push(contentText(m.content))
  }
  const lastTurn = lastTurnOf(texts, toolResults)
  const tools = openAIChatToolNames(body)
  const system = messages
    .filter((m) => m.role === "system" || m.role === "developer")
    .map((m) => contentText(m.content))
    .join("\n\n")
  return {
    format: "openai-chat",
    model: asString(body.model) ?? "",
    stream: body.stream === true,
    system,
    tools,
    dialect: tools.length > 0 ? "native" : "xml",
    lastTurn,
    reasoning: { visible: true, summary: false, encrypted: false },
    includeUsage: asRecord(body.stream_options)?.include_usage === true,
  }
}

/** Which module writes the answer: DeepSeek's flavour for `deepseek…` models, OpenAI's otherwise. */
const moduleFor = (model: string) => (isDeepSeek(model) ? deepseekFormat : chatModule)

function turnStream({ turn, view, created, chunkSize }: TurnRender) {
  const options = { model: view.model, id: `chatcmpl-replay-${turn.index}`, created }
  const events = turnEvents(turn, { ...options, chunkSize, thinking: true })
  return { options, events }
}

/** The chunks the module's stream encoder writes for a turn, as payloads (the terminator left for `sse`). */
function events(render: TurnRender): unknown[] {
  const { options, events } = turnStream(render)
  const encoder = moduleFor(render.view.model).createStreamEncoder({
    ...options,
    includeUsage: render.view.includeUsage,
  })
  const text = events.map((e) => encoder.push(e)).join("") + encoder.end()
  return text
    .split("\n\n")
    .filter((frame) => frame.startsWith("data: ") && frame !== "data: [DONE]")
    .map((frame) => JSON.parse(frame.slice("data: ".length)) as unknown)
}

function complete(render: TurnRender): unknown {
  const { options, events } = turnStream(render)
  return moduleFor(render.view.model).encodeResponse(events, options)
}

/** The OpenAI Chat Completions handler. */
export const openAIChatFormat: FormatHandler = {
  format: "openai-chat",
  callIdPrefix: "call_replay_",
  check,
  unknownFields: (body) => unknownFields(body, OPENAI_CHAT_REQUEST_FIELDS),
  view,
  events,
  sse: (evs) => [...evs.map((e) => `data: ${JSON.stringify(e)}\n\n`), "data: [DONE]\n\n"],
  complete,
  error: chatError,
}

/** The codes replay's own failures carry (the module has no word for a diverged or exhausted script). */
const REPLAY_CODES: Partial<Record<Failure["kind"], string>> = {
  diverged: "replay_diverged",
  exhausted: "replay_exhausted",
  "not-found": "unknown_url",
}

/** A replay failure through the format module's error encoder, with replay's own codes. */
function chatError(failure: Failure): ErrorAnswer {
  const input: ErrorInput = {
    kind: FAILURE_KINDS[failure.kind],
    // An overflow names OpenAI's figures, which the module's overflow message repeats.
    message:
      failure.kind === "context-overflow"
        ? "This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens."
        : failure.message,
  }
  if (failure.param !== undefined) input.param = failure.param
  if (failure.kind === "rate-limit") input.retryAfterMs = (failure.retryAfter ?? 1) * 1000
  const answer = moduleFor("").encodeError(input)
  const code = failure.code ?? REPLAY_CODES[failure.kind]
  const body = answer.body as { error: { code: string | null } }
  if (code !== undefined) body.error.code = code
  return { status: answer.status, headers: answer.headers, body }
}
