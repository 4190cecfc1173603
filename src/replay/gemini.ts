import { checkGeminiRequest, geminiField } from "../providers/gemini/request-shape.js"
import { splitText } from "./chunk.js"
import {
  type ErrorAnswer,
  type Failure,
  type FormatHandler,
  type RouteInfo,
  retryHeaders,
  type TurnRender,
} from "./format.js"
import type { ResolvedTurn, ResolvedUsage } from "./resolve.js"
import { asArray, asRecord, asString, contentText, lastTurnOf, type RequestView, type ToolResultView } from "./view.js"

/**
 * Gemini (`POST /v1beta/models/{model}:streamGenerateContent?alt=sse` and `:generateContent`).
 * Function calls arrive whole, one part each; the last chunk carries the finish reason. Every chunk
 * carries the usage figures, as Gemini 3 streams do.
 */

const FINISH: Record<ResolvedTurn["stop"], string> = {
  end: "STOP",
  tool_use: "STOP",
  length: "MAX_TOKENS",
  refusal: "SAFETY",
}

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

function usageMetadata(u: ResolvedUsage): Record<string, unknown> {
  const prompt = u.input + u.cacheRead + u.cacheWrite
  const meta: Record<string, unknown> = {
    promptTokenCount: prompt,
    candidatesTokenCount: u.output - u.reasoning,
    totalTokenCount: prompt + u.output,
    promptTokensDetails: [{ modality: "TEXT", tokenCount: prompt }],
  }
  if (u.cacheRead > 0) meta.cachedContentTokenCount = u.cacheRead
  if (u.reasoning > 0) meta.thoughtsTokenCount = u.reasoning
  return meta
}

/** The content parts of a turn: one per streamed chunk, or merged for a whole answer. */
function parts({ turn, view, chunkSize }: TurnRender, merged: boolean): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = []
  const pieces = (text: string) => (merged ? [text] : splitText(text, chunkSize))
  if (turn.thinking !== undefined && view.reasoning.visible) {
    for (const text of pieces(turn.thinking)) out.push({ text, thought: true })
  }
  if (turn.text !== "") for (const text of pieces(turn.text)) out.push({ text })
  turn.calls.forEach((call, i) => {
    const part: Record<string, unknown> = { functionCall: { name: call.name, args: call.input } }
    if (i === 0 && turn.thinking !== undefined) part.thoughtSignature = turn.signature
    out.push(part)
  })
  // Without calls, the signature rides on the last text: a part of its own when streaming.
  if (turn.calls.length === 0 && turn.thinking !== undefined) {
    const last = out.at(-1)
    if (merged && last !== undefined && last.thought !== true) last.thoughtSignature = turn.signature
    else out.push({ text: "", thoughtSignature: turn.signature })
  }
  return out
}

function chunk(turn: ResolvedTurn, model: string, content: unknown[], last: boolean): Record<string, unknown> {
  const candidate: Record<string, unknown> = { content: { parts: content, role: "model" }, index: 0 }
  if (last) candidate.finishReason = FINISH[turn.stop]
  return {
    candidates: [candidate],
    usageMetadata: usageMetadata(turn.usage),
    modelVersion: model,
    responseId: `replay-${turn.index}`,
  }
}

/** One chunk per part; the finish reason comes last, on the signature part or an empty text part. */
function events(render: TurnRender): unknown[] {
  const { turn, view } = render
  const all = parts(render, false)
  const closing = all.at(-1)?.thoughtSignature !== undefined && all.at(-1)?.functionCall === undefined
  const body = closing ? all.slice(0, -1) : all
  return [
    ...body.map((part) => chunk(turn, view.model, [part], false)),
    chunk(turn, view.model, [closing ? all.at(-1)! : { text: "" }], true),
  ]
}

function complete(render: TurnRender): unknown {
  return chunk(render.turn, render.view.model, parts(render, true), true)
}

const ERRORS: Record<Failure["kind"], [number, string]> = {
  "invalid-request": [400, "INVALID_ARGUMENT"],
  diverged: [400, "FAILED_PRECONDITION"],
  exhausted: [400, "FAILED_PRECONDITION"],
  "context-overflow": [400, "INVALID_ARGUMENT"],
  "not-found": [404, "NOT_FOUND"],
  "rate-limit": [429, "RESOURCE_EXHAUSTED"],
  "server-error": [500, "INTERNAL"],
  overloaded: [503, "UNAVAILABLE"],
}

function error(failure: Failure): ErrorAnswer {
  const [code, status] = ERRORS[failure.kind]
  const message =
    failure.kind === "context-overflow"
      ? "The input token count (1234567) exceeds the maximum number of tokens allowed (1048576)."
      : failure.message
  const body: Record<string, unknown> = { code, message, status }
  if (failure.kind === "rate-limit")
    body.details = [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: `${failure.retryAfter ?? 1}s` }]
  return { status: code, headers: retryHeaders(failure), body: { error: body } }
}

/** The Gemini handler. */
export const geminiFormat: FormatHandler = {
  format: "gemini",
  callIdPrefix: "gemini_replay_",
  check,
  view,
  events,
  sse: (evs) => evs.map((e) => `data: ${JSON.stringify(e)}\r\n\r\n`),
  complete,
  error,
}
