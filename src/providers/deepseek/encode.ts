/**
 * DeepSeek request bodies: the OpenAI Chat shape plus DeepSeek's thinking switch and `reasoning_content`.
 * What happens to earlier reasoning depends on the model generation:
 * - thinking-mode models (deepseek-chat/deepseek-reasoner since V3.1, V3.2, V4): between two user messages
 *   in which the model called tools, every assistant message must carry its `reasoning_content` back
 *   (an empty string when it is unknown), or the API answers 400; elsewhere it is ignored, so it is left out;
 * - the first reasoner generation (R1, also as served by Ollama and others) rejects `reasoning_content` in
 *   input and successive messages of the same role, so reasoning is stripped and such messages are merged.
 */
import type { Diagnostic } from "../../diagnostics.js"
import { diagnostic } from "../../diagnostics.js"
import type { ModelInfo } from "../../models/types.js"
import { unmanagedUncarried, withUncarried } from "../carried.js"
import {
  applyChatTools,
  applyStream,
  CHAT_TURNS,
  type ChatMessage,
  compatFor,
  effortOf,
  encodeChatMessages,
  type OpenAIChatRequest,
} from "../openai-chat/encode.js"
import type { ChatCompletionContentPart } from "../openai-chat/wire-types.js"
import { prepareHistory } from "../portability.js"
import { repairTurns } from "../turns.js"
import type { EncodeInput, EncodeResult, RequestPart } from "../types.js"

/** A DeepSeek chat request body: OpenAI Chat's, plus the thinking switch. */
export type DeepSeekRequest = OpenAIChatRequest & { thinking?: { type: "enabled" | "disabled" } }

/** How a DeepSeek model treats earlier reasoning: echoed in tool-calling turns, or refused in input. */
export type DeepSeekReasoningRule = "echo-in-tool-turns" | "strip-and-merge"

/** The reasoning rule of a DeepSeek model, from its id. */
export function deepSeekReasoningRule(model: Pick<ModelInfo, "id">): DeepSeekReasoningRule {
  return /(^|[/:_-])(deepseek-)?r1($|[/:_.-])/i.test(model.id) ? "strip-and-merge" : "echo-in-tool-turns"
}

/** Encodes a request for the DeepSeek chat API. */
export function encodeDeepSeek(input: EncodeInput): EncodeResult<DeepSeekRequest> {
  const options = input.options ?? {}
  const compat = compatFor(
    { ...input.model, provider: "deepseek" },
    { systemRole: "system", maxTokensField: "max_tokens", thinking: "reasoning_content", ...options.compat },
  )
  const prepared = prepareHistory(input)
  const diagnostics: Diagnostic[] = [...prepared.diagnostics]
  const native = prepared.toolCalling === "native" && input.prompt.tools.length > 0
  const rule = deepSeekReasoningRule(input.model)

  let messages: ChatMessage[] = []
  if (input.prompt.text) messages.push({ role: "system", content: input.prompt.text })
  messages.push(...encodeChatMessages(prepared.messages, compat, diagnostics))
  const strict = rule === "strip-and-merge"
  if (strict) messages = messages.map(withoutReasoning)
  else {
    const filled = echoInToolTurns(messages)
    if (filled > 0)
      diagnostics.push(
        diagnostic(
          "info",
          "reasoning-content-empty",
          `${filled} assistant message${filled === 1 ? "" : "s"} in tool-calling turns had no reasoning; sent ""`,
        ),
      )
  }
  // An assistant message that held only reasoning is empty once its reasoning is left out.
  const kept = messages.filter((m) => !isEmptyAssistant(m))
  if (kept.length < messages.length) {
    const n = messages.length - kept.length
    diagnostics.push(
      diagnostic(
        "info",
        "reasoning-only-dropped",
        `${n} assistant message${n === 1 ? "" : "s"} with only reasoning not sent`,
      ),
    )
  }
  // R1 wants the user first after the system prompt and no two user or assistant messages in a row.
  const turns = repairTurns(kept, { ...CHAT_TURNS, ...(strict ? { merge: mergeTwo } : {}), userFirst: strict })
  messages = turns.messages
  diagnostics.push(...turns.diagnostics)

  const body: DeepSeekRequest = { model: input.model.id, messages }
  const uncarried: RequestPart[] = applyChatTools(body, input, native)
  body.max_tokens = options.maxTokens ?? input.model.maxOutput
  if (options.temperature !== undefined) body.temperature = options.temperature
  if (options.thinking !== undefined && rule === "echo-in-tool-turns") {
    body.thinking = { type: options.thinking === false ? "disabled" : "enabled" }
    if (options.thinking !== false) body.reasoning_effort = effortOf(options.thinking)
  } else if (options.thinking !== undefined)
    // R1 takes no thinking setting (it always thinks, as much as it likes): nothing asked of it is sent.
    uncarried.push("thinking")
  const format = options.responseFormat
  if (format) {
    // DeepSeek's JSON output takes no schema: the answer is JSON, its shape is up to the prompt.
    body.response_format = { type: "json_object" }
    if (format.type === "json-schema") {
      diagnostics.push(
        diagnostic("warning", "response-schema-unsupported", "DeepSeek's JSON output takes no schema; JSON mode sent"),
      )
      uncarried.push("responseFormat.schema")
    }
  }
  applyStream(body, options, compat)
  uncarried.push(...unmanagedUncarried(options))
  return { body, diagnostics, breakpoints: [], ...withUncarried(uncarried) }
}

function withoutReasoning(message: ChatMessage): ChatMessage {
  if (!("reasoning_content" in message)) return message
  const { reasoning_content: _r, ...rest } = message
  return rest as ChatMessage
}

/** An assistant message with neither content nor calls (reasoning alone does not make an answer). */
function isEmptyAssistant(m: ChatMessage): boolean {
  if (m.role !== "assistant" || (m.tool_calls?.length ?? 0) > 0) return false
  return (
    m.content === null ||
    m.content === undefined ||
    m.content === "" ||
    (Array.isArray(m.content) && m.content.length === 0)
  )
}

/** Gives every assistant message of a tool-calling turn its reasoning; drops it elsewhere. Returns how many were empty. */
function echoInToolTurns(messages: ChatMessage[]): number {
  let filled = 0
  let start = 0
  for (let i = 0; i <= messages.length; i++) {
    if (i < messages.length && messages[i]!.role !== "user") continue
    const span = messages.slice(start, i)
    const calls = span.some((m) => m.role === "assistant" && (m.tool_calls?.length ?? 0) > 0)
    for (let j = start; j < i; j++) {
      const m = messages[j]!
      if (m.role !== "assistant") continue
      if (!calls) messages[j] = withoutReasoning(m)
      else if (m.reasoning_content === undefined) {
        messages[j] = { ...m, reasoning_content: "" }
        filled++
      }
    }
    start = i + 1
  }
  return filled
}

/** Joins two successive user or assistant messages into one. */
function mergeTwo(a: ChatMessage, b: ChatMessage): ChatMessage {
  const content = mergeContent(a.content, b.content)
  if (a.role === "assistant" && b.role === "assistant") {
    const calls = [...(a.tool_calls ?? []), ...(b.tool_calls ?? [])]
    return { ...a, content, ...(calls.length > 0 ? { tool_calls: calls } : {}) } as ChatMessage
  }
  return { ...a, content } as ChatMessage
}

type AnyContent = ChatMessage["content"]

function mergeContent(a: AnyContent, b: AnyContent): AnyContent {
  if (a === null || a === undefined || a === "") return b
  if (b === null || b === undefined || b === "") return a
  if (typeof a === "string" && typeof b === "string") return `${a}\n\n${b}`
  const parts = (c: NonNullable<AnyContent>) =>
    (typeof c === "string" ? [{ type: "text", text: c }] : c) as ChatCompletionContentPart[]
  return [...parts(a), ...parts(b)] as AnyContent
}
