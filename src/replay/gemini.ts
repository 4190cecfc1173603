import { geminiFormat as geminiModule } from "../providers/gemini/index.js"
import { checkGeminiRequest, geminiField, geminiUnknownFields } from "../providers/gemini/request-shape.js"
import type { StreamEvent } from "../providers/stream.js"
import type { ErrorInput } from "../providers/types.js"
import {
  type ErrorAnswer,
  FAILURE_KINDS,
  type Failure,
  type FormatHandler,
  type RouteInfo,
  type TurnRender,
} from "./format.js"
import { turnEvents } from "./turn-events.js"
import { asArray, asRecord, asString, contentText, lastTurnOf, type RequestView, type ToolResultView } from "./view.js"

/**
 * Gemini (`POST /v1beta/models/{model}:streamGenerateContent?alt=sse` and `:generateContent`): the request is
 * read here for the script's expectations; the answer is the turn's events written by the Gemini format module.
 */

/** The Gemini API's own checks. */
const check = checkGeminiRequest

/** The text of a function response: its `output`, `content` or `result` string, else the JSON. */
function responseText(response: unknown): string {
  const record = asRecord(response)
  for (const key of ["output", "content", "result"]) {
    const value = record?.[key]
    if (typeof value === "string") return value
  }
  return JSON.stringify(response ?? null)
}

function view(body: Record<string, unknown>, _names: ReadonlyMap<string, string>, route: RouteInfo): RequestView {
  const contents = asArray(body.contents).map((c) => asRecord(c) ?? {})
  const lastModel = contents.map((c) => c.role).lastIndexOf("model")
  const texts: string[] = []
  const toolResults: ToolResultView[] = []
  for (const content of contents.slice(lastModel + 1)) {
    for (const part of asArray(content.parts).map((p) => asRecord(p) ?? {})) {
      if (typeof part.text === "string" && part.thought !== true) texts.push(part.text)
      // The REST API takes snake_case names as well (`function_response`, `system_instruction`, …).
      const fr = asRecord(geminiField(part, "functionResponse"))
      if (fr) {
        const result: ToolResultView = { text: responseText(fr.response) }
        const name = asString(fr.name)
        if (name !== undefined) result.tool = name
        const id = asString(fr.id)
        if (id !== undefined) result.callId = id
        if (asRecord(fr.response)?.error !== undefined) result.isError = true
        toolResults.push(result)
      }
    }
  }
  const lastTurn = lastTurnOf(texts, toolResults)
  const tools = asArray(body.tools)
    .flatMap((t) => asArray(geminiField(asRecord(t), "functionDeclarations")))
    .map((d) => asString(asRecord(d)?.name))
    .filter((n): n is string => n !== undefined)
  const config = asRecord(geminiField(body, "generationConfig"))
  const visible = geminiField(asRecord(geminiField(config, "thinkingConfig")), "includeThoughts") === true
  const instruction = geminiField(body, "systemInstruction")
  return {
    format: "gemini",
    model: route.model ?? "",
    stream: route.stream === true,
    system: contentText(asRecord(instruction)?.parts ?? instruction),
    tools,
    dialect: tools.length > 0 ? "native" : "xml",
    lastTurn,
    reasoning: { visible, summary: visible, encrypted: false },
  }
}

/** The response id of a turn's answer. */
const responseId = (render: TurnRender) => `replay-${render.turn.index}`

/**
 * The turn's events as Gemini sends them: the signature travels even when the thoughts are hidden, on the first
 * function call or (without calls) after the text; calls carry no id of their own (the client derives one).
 */
function replayEvents(render: TurnRender): StreamEvent[] {
  const { turn, view, chunkSize } = render
  const id = responseId(render)
  const events = turnEvents(turn, { id, model: view.model, chunkSize, thinking: view.reasoning.visible })
  const renamed = new Map(turn.calls.map((call, i) => [call.id, `${id}_${i}`]))
  const out: StreamEvent[] = []
  for (const event of events) {
    if (event.type === "thinking") {
      const { signature: _signature, ...rest } = event
      if (rest.delta !== "") out.push(rest)
    } else if (event.type === "tool_call_start" || event.type === "tool_call_delta") {
      out.push({ ...event, id: renamed.get(event.id) ?? event.id })
    } else if (event.type === "tool_call_end") {
      const first = event.id === turn.calls[0]?.id && turn.thinking !== undefined
      out.push({ ...event, id: renamed.get(event.id) ?? event.id, ...(first ? { signature: turn.signature } : {}) })
    } else {
      if (event.type === "usage" && turn.calls.length === 0 && turn.thinking !== undefined)
        out.push({ type: "thinking", delta: "", signature: turn.signature })
      out.push(event)
    }
  }
  return out
}

const encodeOptions = (render: TurnRender) => ({ model: render.view.model, id: responseId(render) })

/** The stream's chunks, as the format module's stream encoder writes them (read back from its `data:` lines). */
function events(render: TurnRender): unknown[] {
  const encoder = geminiModule.createStreamEncoder({ ...encodeOptions(render), sse: true })
  const text =
    replayEvents(render)
      .map((e) => encoder.push(e))
      .join("") + encoder.end()
  return text
    .split("\r\n\r\n")
    .filter((frame) => frame.startsWith("data: "))
    .map((frame) => JSON.parse(frame.slice("data: ".length)) as unknown)
}

/** The stream as one JSON array, as the stream encoder writes it without `alt=sse`. */
function array(render: TurnRender): string {
  const encoder = geminiModule.createStreamEncoder({ ...encodeOptions(render), sse: false })
  return (
    replayEvents(render)
      .map((e) => encoder.push(e))
      .join("") + encoder.end()
  )
}

function complete(render: TurnRender): unknown {
  return geminiModule.encodeResponse(replayEvents(render), encodeOptions(render))
}

function error(failure: Failure): ErrorAnswer {
  const input: ErrorInput = {
    kind: FAILURE_KINDS[failure.kind],
    message:
      failure.kind === "context-overflow"
        ? "The input token count (1234567) exceeds the maximum number of tokens allowed (1048576)."
        : failure.message,
  }
  if (failure.kind === "rate-limit") input.retryAfterMs = (failure.retryAfter ?? 1) * 1000
  const answer = geminiModule.encodeError(input)
  if (failure.kind === "diverged" || failure.kind === "exhausted")
    (answer.body as { error: { status: string } }).error.status = "FAILED_PRECONDITION"
  return answer
}

/** The Gemini handler. */
export const geminiFormat: FormatHandler = {
  format: "gemini",
  callIdPrefix: "gemini_replay_",
  check,
  unknownFields: geminiUnknownFields,
  view,
  events,
  sse: (evs) => evs.map((e) => `data: ${JSON.stringify(e)}\r\n\r\n`),
  array,
  complete,
  error,
}
