/**
 * OpenAI Chat Completions request bodies, for OpenAI and the servers that copy its API (Ollama, vLLM,
 * LM Studio, llama.cpp, OpenRouter, xAI). Where those servers differ, `OpenAICompat` says how.
 */
import { type Diagnostic, diagnostic } from "../../diagnostics.js"
import type { Block, ImageBlock, Message } from "../../history/message.js"
import { textOf } from "../../history/message.js"
import { fitEffort, fitThinkingOff } from "../../models/thinking.js"
import type { ModelInfo } from "../../models/types.js"
import { choiceOffered, deferralUncarried, unmanagedUncarried, withUncarried } from "../carried.js"
import { prepareHistory } from "../portability.js"
import { systemText } from "../system-message.js"
import { repairTurns, type TurnRole } from "../turns.js"
import type {
  EncodeInput,
  EncodeOptions,
  EncodeResult,
  OpenAICompat,
  ReasoningEffort,
  RequestPart,
  ThinkingOptions,
} from "../types.js"
import { toChatResponseFormat } from "./response-format.js"
import { toOpenAIChatTools } from "./tools.js"
import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionContentPart,
  ChatCompletionContentPartText,
  ChatCompletionMessageToolCall,
  ChatCompletionToolChoiceOption,
  ChatCompletionToolMessageParam,
  ChatMessage,
  OpenAIChatRequest,
} from "./wire-types.js"

export type { OpenAICompat } from "../types.js"
export type { ChatMessage, OpenAIChatRequest } from "./wire-types.js"

const LOCAL = new Set(["ollama", "lmstudio", "llamacpp", "llama.cpp", "vllm"])

/** The compatibility settings that fit a model's provider, with `override` on top. */
export function compatFor(model: ModelInfo, override: OpenAICompat = {}): Required<OpenAICompat> {
  const openai = model.provider === "openai" || model.provider === "azure"
  const reasoning = openai && model.capabilities.thinking
  const preset: Required<OpenAICompat> = {
    systemRole: reasoning ? "developer" : "system",
    maxTokensField: openai ? "max_completion_tokens" : "max_tokens",
    toolResultName: false,
    thinking: model.provider === "deepseek" ? "reasoning_content" : "omit",
    streamUsage: true,
    reasoningEffort: reasoning || model.provider === "deepseek",
    promptCache: openai,
  }
  if (LOCAL.has(model.provider)) preset.thinking = "omit"
  return { ...preset, ...definedOnly(override) }
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>
}

/** Encodes a request for OpenAI Chat Completions (or a compatible server). */
export function encodeOpenAIChat(input: EncodeInput): EncodeResult<OpenAIChatRequest> {
  const options = input.options ?? {}
  const compat = compatFor(input.model, options.compat)
  const prepared = prepareHistory(input)
  const diagnostics: Diagnostic[] = [...prepared.diagnostics]
  const native = prepared.toolCalling === "native" && input.prompt.tools.length > 0

  const encoded: ChatMessage[] = []
  if (input.prompt.text) encoded.push({ role: compat.systemRole, content: input.prompt.text })
  encoded.push(...encodeChatMessages(prepared.messages, compat, diagnostics))
  // Any order of turns is accepted; only a request without a single message is not.
  const turns = repairTurns(encoded, { ...CHAT_TURNS, userFirst: false })
  const messages = turns.messages
  diagnostics.push(...turns.diagnostics)

  const body: OpenAIChatRequest = { model: input.model.id, messages }
  const uncarried = applyChatTools(body, input, native)
  body[compat.maxTokensField] = options.maxTokens ?? input.model.maxOutput
  uncarried.push(...applySampling(body, input, compat, diagnostics))
  if (options.responseFormat) body.response_format = toChatResponseFormat(options.responseFormat)
  applyStream(body, options, compat)
  applyPromptCache(body, options, compat)
  uncarried.push(...unmanagedUncarried(options))
  return { body, diagnostics, breakpoints: [], ...withUncarried(uncarried) }
}

/**
 * Writes the tools, tool choice and parallel-call setting of a Chat body (shared with DeepSeek); returns what it
 * could not carry: deferred tools (Chat cannot defer) and a choice of a tool the body does not offer.
 */
export function applyChatTools(body: OpenAIChatRequest, input: EncodeInput, native: boolean): RequestPart[] {
  const options = input.options ?? {}
  const uncarried = deferralUncarried(input)
  const tools = native ? input.prompt.tools : []
  if (native) {
    body.tools = toOpenAIChatTools(tools)
    if (options.parallelToolCalls !== undefined) body.parallel_tool_calls = options.parallelToolCalls
  }
  if (options.toolChoice !== undefined && !choiceOffered(options.toolChoice, tools)) uncarried.push("toolChoice")
  else if (native) {
    const choice = chatToolChoice(options)
    if (choice) body.tool_choice = choice
  }
  return uncarried
}

/** How turn repairs read Chat Completions messages: system, developer and tool messages are no turn. */
export const CHAT_TURNS = {
  roleOf: (m: ChatMessage): TurnRole => (m.role === "user" || m.role === "assistant" ? m.role : "other"),
  userTurn: (text: string): ChatMessage => ({ role: "user", content: text }),
}

/** History messages as Chat Completions messages (shared with the DeepSeek encoder). */
export function encodeChatMessages(
  history: readonly Message[],
  compat: Required<OpenAICompat>,
  diagnostics: Diagnostic[],
): ChatMessage[] {
  const out: ChatMessage[] = []
  const names = new Map<string, string>()
  let images = 0
  for (const message of history) {
    if (message.role === "assistant") {
      const encoded = encodeAssistant(message, compat)
      for (const b of message.content) {
        if (b.type === "tool_use") names.set(b.id, b.name)
        if (b.type === "image") images++
      }
      if (encoded) out.push(encoded)
    } else if (message.role === "system") {
      // A system message mid-conversation is a system (or developer) message where it stands.
      out.push({ role: compat.systemRole, content: systemText(message) })
    } else out.push(...encodeUser(message, compat, names, diagnostics))
  }
  if (images > 0) diagnostics.push(assistantImagesDropped(images))
  return out
}

/** The report of images in assistant messages, which OpenAI's assistant messages cannot carry (shared with Responses). */
export function assistantImagesDropped(n: number): Diagnostic {
  return diagnostic(
    "warning",
    "assistant-image-dropped",
    `${n} image${n === 1 ? "" : "s"} in assistant messages not sent: assistant messages carry text only`,
  )
}

function encodeAssistant(message: Message, compat: Required<OpenAICompat>): ChatMessage | undefined {
  const texts: string[] = []
  const thinking: string[] = []
  const calls: ChatCompletionMessageToolCall[] = []
  for (const block of message.content) {
    if (block.type === "text") texts.push(block.text)
    else if (block.type === "thinking") thinking.push(block.text)
    else if (block.type === "tool_use")
      calls.push({ id: block.id, type: "function", function: { name: block.name, arguments: argsJson(block.input) } })
  }
  let content = texts.filter((t) => t !== "").join("\n\n")
  const reasoning = thinking.filter((t) => t !== "").join("\n\n")
  if (reasoning && compat.thinking === "think-tags") content = `<think>\n${reasoning}\n</think>\n\n${content}`.trimEnd()
  if (content === "" && calls.length === 0 && !(reasoning && compat.thinking === "reasoning_content")) return undefined
  const out: ChatCompletionAssistantMessageParam & { reasoning_content?: string } = {
    role: "assistant",
    content: content === "" && calls.length > 0 ? null : content,
  }
  if (calls.length > 0) out.tool_calls = calls
  if (compat.thinking === "reasoning_content" && thinking.length > 0) out.reasoning_content = reasoning
  return out
}

/** Arguments as the JSON text OpenAI expects; a non-object input (a failed parse) still goes as JSON. */
function argsJson(input: unknown): string {
  return JSON.stringify(input ?? {})
}

function encodeUser(
  message: Message,
  compat: Required<OpenAICompat>,
  names: Map<string, string>,
  diagnostics: Diagnostic[],
): ChatMessage[] {
  const out: ChatMessage[] = []
  const parts: ChatCompletionContentPart[] = []
  for (const block of message.content) {
    if (block.type === "tool_result") {
      const texts = textOf(block)
      const tool: ChatCompletionToolMessageParam & { name?: string } = {
        role: "tool",
        tool_call_id: block.toolUseId,
        content: block.isError ? `Error: ${texts}` : texts,
      }
      if (compat.toolResultName) tool.name = names.get(block.toolUseId) ?? "unknown"
      out.push(tool)
      // Tool messages carry text only: images a tool returned follow in the user message.
      const images = typeof block.content === "string" ? [] : block.content.filter((b) => b.type === "image")
      if (images.length > 0) {
        parts.push({ type: "text", text: `Images returned by tool call ${block.toolUseId}:` })
        for (const image of images) parts.push(imagePart(image))
        diagnostics.push(
          diagnostic("info", "tool-images-moved", "images from a tool result were sent in the next user message"),
        )
      }
    } else {
      const part = userPart(block)
      if (part) parts.push(part)
    }
  }
  if (parts.length > 0) {
    const onlyText = parts.every((p): p is ChatCompletionContentPartText => p.type === "text")
    out.push({ role: "user", content: onlyText ? parts.map((p) => p.text).join("\n\n") : parts })
  }
  return out
}

function userPart(block: Block): ChatCompletionContentPart | undefined {
  if (block.type === "text") return block.text === "" ? undefined : { type: "text", text: block.text }
  if (block.type === "image") return imagePart(block)
  return undefined
}

function imagePart(block: ImageBlock): ChatCompletionContentPart {
  return { type: "image_url", image_url: { url: `data:${block.mediaType};base64,${block.data}` } }
}

/** The requested tool choice in Chat Completions form (shared with the DeepSeek encoder). */
export function chatToolChoice(options: EncodeOptions): ChatCompletionToolChoiceOption | undefined {
  const choice = options.toolChoice
  if (choice === undefined || typeof choice === "string") return choice
  return { type: "function", function: { name: choice.name } }
}

/** An effort for providers that only take efforts, from the requested effort or budget. */
export function effortOf(thinking: ThinkingOptions): ReasoningEffort {
  if (thinking.effort) return thinking.effort
  const budget = thinking.budgetTokens ?? 8192
  return budget < 2048 ? "low" : budget < 16_384 ? "medium" : "high"
}

/**
 * The effort to send to an effort-steered model, fitted to the efforts its catalog row lists: thinking off is
 * `none` only where the model accepts it, otherwise its least effort (with a diagnostic).
 */
export function effortFor(
  model: Pick<ModelInfo, "id" | "thinking">,
  thinking: ThinkingOptions | false,
  diagnostics: Diagnostic[],
): ReasoningEffort | "none" {
  if (thinking === false) {
    const off = fitThinkingOff(model)
    if (off.off) return "none"
    diagnostics.push(off.diagnostic)
    return off.effort ?? "low"
  }
  const fitted = fitEffort(model, effortOf(thinking))
  if (fitted.diagnostic) diagnostics.push(fitted.diagnostic)
  return fitted.value
}

/** Temperature and reasoning effort; returns what it could not carry. */
function applySampling(
  body: OpenAIChatRequest,
  input: EncodeInput,
  compat: Required<OpenAICompat>,
  diagnostics: Diagnostic[],
): RequestPart[] {
  const uncarried: RequestPart[] = []
  const { thinking, temperature } = input.options ?? {}
  const reasoningModel = input.model.capabilities.thinking && input.model.provider === "openai"
  if (temperature !== undefined) {
    if (reasoningModel) {
      diagnostics.push(
        diagnostic(
          "warning",
          "temperature-unsupported",
          `${input.model.id} is a reasoning model; temperature not sent`,
        ),
      )
      uncarried.push("temperature")
    } else body.temperature = temperature
  }
  if (thinking === undefined) return uncarried
  if (!compat.reasoningEffort || !input.model.capabilities.thinking) {
    diagnostics.push(diagnostic("info", "thinking-not-sent", `no reasoning setting is sent to ${input.model.id}`))
    // Thinking off is what a model that does not think does anyway.
    if (thinking !== false || input.model.capabilities.thinking) uncarried.push("thinking")
    return uncarried
  }
  const effort = effortFor(input.model, thinking, diagnostics)
  body.reasoning_effort = effort
  if (thinking === false && effort !== "none") uncarried.push("thinking")
  return uncarried
}

/** Sets `stream` (on unless turned off) and asks for usage in the stream when the provider supports it. */
export function applyStream(body: OpenAIChatRequest, options: EncodeOptions, compat: Required<OpenAICompat>): void {
  const stream = options.stream ?? true
  body.stream = stream
  if (stream && compat.streamUsage) body.stream_options = { include_usage: true }
}

/** OpenAI prompt caching: the session id as `prompt_cache_key`, and the retention when one is asked for. */
export function applyPromptCache(
  body: { prompt_cache_key?: string | null; prompt_cache_retention?: "in_memory" | "24h" | null },
  options: EncodeOptions,
  compat: Pick<OpenAICompat, "promptCache">,
): void {
  const cache = options.cache
  if (!cache || !compat.promptCache) return
  if (cache.sessionId) body.prompt_cache_key = cache.sessionId
  if (cache.retention) body.prompt_cache_retention = cache.retention
}
