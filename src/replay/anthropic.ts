import { checkAnthropicRequest } from "../providers/anthropic/request-shape.js"
import { splitText } from "./chunk.js"
import { type ErrorAnswer, type Failure, type FormatHandler, retryHeaders, type TurnRender } from "./format.js"
import type { ResolvedUsage } from "./resolve.js"
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

const STOP: Record<TurnRender["turn"]["stop"], string> = {
  end: "end_turn",
  tool_use: "tool_use",
  length: "max_tokens",
  refusal: "refusal",
}

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

function usageFields(u: ResolvedUsage) {
  return { input_tokens: u.input, cache_creation_input_tokens: u.cacheWrite, cache_read_input_tokens: u.cacheRead }
}

function events({ turn, view, chunkSize }: TurnRender): unknown[] {
  const out: unknown[] = [
    {
      type: "message_start",
      message: {
        id: `msg_replay_${turn.index}`,
        type: "message",
        role: "assistant",
        model: view.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...usageFields(turn.usage), output_tokens: 1 },
      },
    },
  ]
  let index = 0
  const block = (start: unknown, deltas: unknown[]) => {
    out.push({ type: "content_block_start", index, content_block: start })
    if (index === 0) out.push({ type: "ping" })
    for (const delta of deltas) out.push({ type: "content_block_delta", index, delta })
    out.push({ type: "content_block_stop", index })
    index++
  }
  if (turn.thinking !== undefined && view.reasoning.visible) {
    block({ type: "thinking", thinking: "", signature: "" }, [
      ...splitText(turn.thinking, chunkSize).map((thinking) => ({ type: "thinking_delta", thinking })),
      { type: "signature_delta", signature: turn.signature },
    ])
  }
  if (turn.text !== "") {
    block(
      { type: "text", text: "" },
      splitText(turn.text, chunkSize).map((text) => ({ type: "text_delta", text })),
    )
  }
  for (const call of turn.calls) {
    block({ type: "tool_use", id: call.id, name: call.name, input: {} }, [
      { type: "input_json_delta", partial_json: "" },
      ...splitText(call.arguments, chunkSize).map((partial_json) => ({ type: "input_json_delta", partial_json })),
    ])
  }
  out.push({
    type: "message_delta",
    delta: { stop_reason: STOP[turn.stop], stop_sequence: null },
    usage: { ...usageFields(turn.usage), output_tokens: turn.usage.output },
  })
  out.push({ type: "message_stop" })
  return out
}

function complete({ turn, view }: TurnRender): unknown {
  const content: unknown[] = []
  if (turn.thinking !== undefined && view.reasoning.visible)
    content.push({ type: "thinking", thinking: turn.thinking, signature: turn.signature })
  if (turn.text !== "") content.push({ type: "text", text: turn.text })
  for (const call of turn.calls) content.push({ type: "tool_use", id: call.id, name: call.name, input: call.input })
  return {
    id: `msg_replay_${turn.index}`,
    type: "message",
    role: "assistant",
    model: view.model,
    content,
    stop_reason: STOP[turn.stop],
    stop_sequence: null,
    usage: { ...usageFields(turn.usage), output_tokens: turn.usage.output },
  }
}

const ERRORS: Record<Failure["kind"], [number, string]> = {
  "invalid-request": [400, "invalid_request_error"],
  diverged: [400, "invalid_request_error"],
  exhausted: [400, "invalid_request_error"],
  "context-overflow": [400, "invalid_request_error"],
  "not-found": [404, "not_found_error"],
  "rate-limit": [429, "rate_limit_error"],
  "server-error": [500, "api_error"],
  overloaded: [529, "overloaded_error"],
}

function error(failure: Failure): ErrorAnswer {
  const [status, type] = ERRORS[failure.kind]
  return {
    status,
    headers: retryHeaders(failure),
    body: {
      type: "error",
      error: {
        type,
        message:
          failure.kind === "context-overflow" ? "prompt is too long: 212345 tokens > 200000 maximum" : failure.message,
      },
      request_id: "req_replay",
    },
  }
}

/** The Anthropic Messages handler. */
export const anthropicFormat: FormatHandler = {
  format: "anthropic",
  callIdPrefix: "toolu_replay_",
  check,
  view,
  events,
  sse: (evs) => evs.map((e) => `event: ${String(asRecord(e)?.type)}\ndata: ${JSON.stringify(e)}\n\n`),
  complete,
  error,
}
