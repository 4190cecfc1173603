/**
 * The events of one response written as a whole `chat.completion` body (a request made without streaming),
 * shaped as OpenAI's or DeepSeek's. Text and reasoning are joined; tool calls keep their streamed argument text
 * (or their input as JSON). A failed response is the caller's to answer with `encodeError`: here an error stop
 * becomes the finish reason its content fits.
 */
import type { StopReason, StreamEvent, Usage } from "../stream.js"
import type { StreamEncodeOptions } from "../types.js"
import { CHAT_FINISH, type ChatStreamFlavour, chatResponseId, chatUsageOf } from "./stream-encode.js"

interface Call {
  id: string
  name: string
  args: string
  input?: unknown
}

/** A `chat.completion` for the events of one response (DeepSeek's usage fields in its flavour). */
export function encodeChatResponse(
  events: readonly StreamEvent[],
  options: StreamEncodeOptions,
  flavour: ChatStreamFlavour = "openai-chat",
): Record<string, unknown> {
  let text = ""
  let thinking: string | undefined
  let usage: Usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }
  let stop: StopReason | undefined
  const calls = new Map<string, Call>()
  for (const e of events) {
    if (e.type === "text") text += e.delta
    else if (e.type === "thinking") thinking = (thinking ?? "") + e.delta
    else if (e.type === "tool_call_start") calls.set(e.id, { id: e.id, name: e.name, args: "" })
    else if (e.type === "tool_call_delta") {
      const call = calls.get(e.id)
      if (call) call.args += e.argsDelta
    } else if (e.type === "tool_call_end") {
      const call = calls.get(e.id)
      if (call) call.input = e.input
    } else if (e.type === "usage") {
      const { type: _t, ...figures } = e
      usage = figures
    } else if (e.type === "stop") stop = e.reason
  }
  const deepseek = flavour === "deepseek"
  // OpenAI: null content when there is none, `refusal` and `annotations`; DeepSeek: "" and indexed calls.
  const message: Record<string, unknown> = deepseek
    ? { role: "assistant", content: text }
    : { role: "assistant", content: text === "" ? null : text, refusal: null, annotations: [] }
  if (thinking !== undefined) message.reasoning_content = thinking
  if (calls.size > 0)
    message.tool_calls = [...calls.values()].map((c, index) => ({
      ...(deepseek ? { index } : {}),
      id: c.id,
      type: "function",
      function: { name: c.name, arguments: c.args === "" ? JSON.stringify(c.input ?? {}) : c.args },
    }))
  const reason = stop === undefined || stop === "error" ? (calls.size > 0 ? "tool_use" : "end") : stop
  return {
    id: options.id ?? chatResponseId(options.model),
    object: "chat.completion",
    created: options.created ?? 0,
    model: options.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: CHAT_FINISH[reason] }],
    usage: chatUsageOf(usage, flavour),
  }
}
