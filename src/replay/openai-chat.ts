import { checkOpenAIChatRequest, openAIChatToolNames } from "../providers/openai-chat/request-shape.js"
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

/**
 * OpenAI Chat Completions (`POST /v1/chat/completions`), also spoken by DeepSeek and the
 * OpenAI-compatible servers. A model id starting with `deepseek` gets DeepSeek's flavour: usage on
 * the finishing chunk (always) with its cache hit/miss fields.
 */

const FINISH: Record<TurnRender["turn"]["stop"], string> = {
  end: "stop",
  tool_use: "tool_calls",
  length: "length",
  refusal: "content_filter",
}

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

function usage(u: ResolvedUsage, deepseek: boolean) {
  const prompt = u.input + u.cacheRead + u.cacheWrite
  const figures: Record<string, unknown> = {
    prompt_tokens: prompt,
    completion_tokens: u.output,
    total_tokens: prompt + u.output,
    prompt_tokens_details: { cached_tokens: u.cacheRead, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: u.reasoning,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  }
  if (deepseek) {
    figures.prompt_cache_hit_tokens = u.cacheRead
    figures.prompt_cache_miss_tokens = u.input + u.cacheWrite
  }
  return figures
}

function events({ turn, view, created, chunkSize }: TurnRender): unknown[] {
  const deepseek = isDeepSeek(view.model)
  const withUsageField = view.includeUsage || deepseek
  const chunk = (
    delta: Record<string, unknown>,
    finish: string | null = null,
    extra: Record<string, unknown> = {},
  ) => ({
    id: `chatcmpl-replay-${turn.index}`,
    object: "chat.completion.chunk",
    created,
    model: view.model,
    system_fingerprint: "fp_replay",
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...(withUsageField ? { usage: null } : {}),
    ...extra,
  })
  // DeepSeek opens with an empty reasoning delta and marks the absent half of each delta null.
  const reasoned = turn.thinking !== undefined
  const first = deepseek
    ? reasoned
      ? { role: "assistant", content: null, reasoning_content: "" }
      : { role: "assistant", content: "" }
    : { role: "assistant", content: "", refusal: null }
  const out: unknown[] = [chunk(first)]
  for (const piece of splitText(turn.thinking ?? "", chunkSize))
    out.push(chunk(deepseek ? { content: null, reasoning_content: piece } : { reasoning_content: piece }))
  for (const piece of splitText(turn.text, chunkSize))
    out.push(chunk(deepseek && reasoned ? { content: piece, reasoning_content: null } : { content: piece }))
  turn.calls.forEach((call, index) => {
    out.push(
      chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] }),
    )
    for (const piece of splitText(call.arguments, chunkSize))
      out.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }))
  })
  const finish = FINISH[turn.stop]
  if (deepseek)
    out.push(
      chunk(reasoned ? { content: "", reasoning_content: null } : { content: "" }, finish, {
        usage: usage(turn.usage, true),
      }),
    )
  else {
    out.push(chunk({}, finish))
    if (view.includeUsage) out.push({ ...chunk({}), choices: [], usage: usage(turn.usage, false) })
  }
  return out
}

function complete({ turn, view, created }: TurnRender): unknown {
  const message: Record<string, unknown> = { role: "assistant", content: turn.text === "" ? null : turn.text }
  message.refusal = null
  if (turn.thinking !== undefined) message.reasoning_content = turn.thinking
  if (turn.calls.length > 0)
    message.tool_calls = turn.calls.map((c) => ({
      id: c.id,
      type: "function",
      function: { name: c.name, arguments: c.arguments },
    }))
  return {
    id: `chatcmpl-replay-${turn.index}`,
    object: "chat.completion",
    created,
    model: view.model,
    system_fingerprint: "fp_replay",
    choices: [{ index: 0, message, logprobs: null, finish_reason: FINISH[turn.stop] }],
    usage: usage(turn.usage, isDeepSeek(view.model)),
  }
}

/** An error in OpenAI's shape (`{ error: { message, type, param, code } }`); Responses uses it too. */
export function openAIError(failure: Failure, overflow: { message: string; param: string }): ErrorAnswer {
  const shapes: Record<Failure["kind"], [number, string, string | null, string]> = {
    "invalid-request": [400, "invalid_request_error", failure.code ?? null, failure.message],
    diverged: [400, "invalid_request_error", "replay_diverged", failure.message],
    exhausted: [400, "invalid_request_error", "replay_exhausted", failure.message],
    "context-overflow": [400, "invalid_request_error", "context_length_exceeded", overflow.message],
    "not-found": [404, "invalid_request_error", failure.code ?? "unknown_url", failure.message],
    "rate-limit": [429, "requests", "rate_limit_exceeded", failure.message],
    "server-error": [500, "server_error", null, failure.message],
    overloaded: [503, "server_error", "overloaded", failure.message],
  }
  const [status, type, code, message] = shapes[failure.kind]
  const param = failure.kind === "context-overflow" ? overflow.param : (failure.param ?? null)
  return { status, headers: retryHeaders(failure), body: { error: { message, type, param, code } } }
}

/** The OpenAI Chat Completions handler. */
export const openAIChatFormat: FormatHandler = {
  format: "openai-chat",
  callIdPrefix: "call_replay_",
  check,
  view,
  events,
  sse: (evs) => [...evs.map((e) => `data: ${JSON.stringify(e)}\n\n`), "data: [DONE]\n\n"],
  complete,
  error: (failure) =>
    openAIError(failure, {
      message:
        "This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens. Please reduce the length of the messages.",
      param: "messages",
    }),
}
