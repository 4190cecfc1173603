/**
 * A Chat Completions request body read back into promptline's terms: the inverse of `encodeOpenAIChat` (and, with
 * the DeepSeek flavour, of `encodeDeepSeek`). What the API accepts but promptline does not model is listed in
 * `unmodeled` as JSON paths; only a body that is not a Chat request at all is refused.
 */
import type { Diagnostic } from "../../diagnostics.js"
import type { CacheSettings } from "../cache.js"
import { addSource } from "../carried.js"
import { obj, str } from "../stream.js"
import type {
  DecodedRequest,
  EncodeOptions,
  OpenAICompat,
  ReasoningEffort,
  RequestPart,
  RequestRoute,
  ThinkingOptions,
} from "../types.js"
import { ChatHistoryReader } from "./history-decode.js"
import { fromOpenAIFormat } from "./response-format.js"
import { fromChatToolChoice, fromOpenAIChatTools, invalidAt } from "./tools.js"

/** Which server's dialect of the Chat request to read: OpenAI's, or DeepSeek's (its `thinking` switch). */
export type ChatRequestFlavour = "openai-chat" | "deepseek"

/** The top-level fields the decoder models; every other field with a value is unmodeled. */
const MODELED = new Set([
  "model",
  "messages",
  "tools",
  "functions",
  "tool_choice",
  "function_call",
  "stream",
  "stream_options",
  "max_completion_tokens",
  "max_tokens",
  "reasoning_effort",
  "parallel_tool_calls",
  "temperature",
  "prompt_cache_key",
  "prompt_cache_retention",
  "response_format",
  "n",
])

const EFFORTS: ReadonlySet<string> = new Set<ReasoningEffort>(["minimal", "low", "medium", "high", "xhigh", "max"])

/** Reads a Chat Completions request body. Throws `ProviderError("invalid-request")` naming the path at fault. */
export function decodeChatRequest(
  body: unknown,
  flavour: ChatRequestFlavour = "openai-chat",
  route?: RequestRoute,
): DecodedRequest {
  const b = obj(body)
  if (!b) throw invalidAt("body", "a Chat Completions request must be a JSON object")
  const model = b.model ?? route?.model
  if (typeof model !== "string" || model === "") throw invalidAt("model", "a model id is required")
  if (!Array.isArray(b.messages)) throw invalidAt("messages", "must be a list of messages")
  const unmodeled: string[] = []
  const diagnostics: Diagnostic[] = []
  const sources: Partial<Record<RequestPart, string[]>> = {}
  for (const key of Object.keys(b))
    if (!MODELED.has(key) && !(flavour === "deepseek" && key === "thinking") && b[key] !== null && b[key] !== undefined)
      unmodeled.push(key)

  const history = new ChatHistoryReader({ unmodeled, diagnostics })
  b.messages.forEach((m, i) => {
    history.read(m, i)
  })
  const tools = fromOpenAIChatTools(b, { unmodeled })
  const options: EncodeOptions = {}
  const compat: OpenAICompat = {}
  const toolChoice = fromChatToolChoice(b, { unmodeled })
  if (toolChoice !== undefined) {
    options.toolChoice = toolChoice
    addSource(sources, "toolChoice", b.tool_choice != null ? "tool_choice" : "function_call")
  }
  // Both choices given: `tool_choice` is read, the legacy `function_call` is named.
  if (b.tool_choice != null && b.function_call != null) unmodeled.push("function_call")
  if (typeof b.parallel_tool_calls === "boolean") {
    options.parallelToolCalls = b.parallel_tool_calls
    addSource(sources, "parallelToolCalls", "parallel_tool_calls")
  }
  readLimits(b, options, compat, sources, unmodeled)
  readThinking(b, flavour, options, compat, unmodeled)
  if (options.thinking !== undefined)
    for (const field of flavour === "deepseek" ? ["reasoning_effort", "thinking"] : ["reasoning_effort"])
      if (b[field] != null) addSource(sources, "thinking", field)
  const format = fromOpenAIFormat(b.response_format, "response_format", false, { unmodeled, sources })
  if (format) options.responseFormat = format
  readStream(b, options, compat, unmodeled)
  readCache(b, options, compat, unmodeled)
  if (typeof b.n === "number" && b.n !== 1) unmodeled.push("n")
  if (history.systemRole) compat.systemRole = history.systemRole
  if (history.toolResultName) compat.toolResultName = true
  if (Object.keys(compat).length > 0) options.compat = compat
  return {
    model,
    prompt: { text: history.system, tools },
    messages: history.messages,
    options,
    unmodeled,
    sources,
    diagnostics,
  }
}

function readLimits(
  b: Record<string, unknown>,
  options: EncodeOptions,
  compat: OpenAICompat,
  sources: Partial<Record<RequestPart, string[]>>,
  unmodeled: string[],
): void {
  const field =
    typeof b.max_completion_tokens === "number"
      ? "max_completion_tokens"
      : typeof b.max_tokens === "number"
        ? "max_tokens"
        : undefined
  if (field) {
    options.maxTokens = b[field] as number
    compat.maxTokensField = field
    addSource(sources, "maxTokens", field)
    // Both limits given: the newer one is read, the older one is named.
    if (field === "max_completion_tokens" && b.max_tokens != null) unmodeled.push("max_tokens")
  }
  if (typeof b.temperature === "number") {
    options.temperature = b.temperature
    addSource(sources, "temperature", "temperature")
  }
}

function readThinking(
  b: Record<string, unknown>,
  flavour: ChatRequestFlavour,
  options: EncodeOptions,
  compat: OpenAICompat,
  unmodeled: string[],
): void {
  const effort = b.reasoning_effort
  let thinking: ThinkingOptions | false | undefined
  if (typeof effort === "string") {
    compat.reasoningEffort = true
    if (effort === "none") thinking = false
    else if (EFFORTS.has(effort)) thinking = { effort: effort as ReasoningEffort }
    else unmodeled.push("reasoning_effort")
  }
  if (flavour === "deepseek" && b.thinking !== undefined && b.thinking !== null) {
    const type = obj(b.thinking)?.type
    if (type === "disabled") thinking = false
    else if (type === "enabled") thinking = thinking === false || thinking === undefined ? {} : thinking
    else unmodeled.push("thinking")
  }
  if (thinking !== undefined) options.thinking = thinking
}

function readStream(b: Record<string, unknown>, options: EncodeOptions, compat: OpenAICompat, unmodeled: string[]) {
  // Chat answers whole unless asked to stream (promptline's encoders stream unless told not to).
  options.stream = b.stream === true
  const streamOptions = obj(b.stream_options)
  if (!streamOptions) return
  if (streamOptions.include_usage === true) compat.streamUsage = true
  for (const key of Object.keys(streamOptions))
    if (key !== "include_usage" && streamOptions[key] !== null) unmodeled.push(`stream_options.${key}`)
}

function readCache(b: Record<string, unknown>, options: EncodeOptions, compat: OpenAICompat, unmodeled: string[]) {
  const cache: CacheSettings = {}
  const key = str(b.prompt_cache_key)
  if (key !== undefined) cache.sessionId = key
  const retention = b.prompt_cache_retention
  if (retention === "in_memory" || retention === "24h") cache.retention = retention
  else if (retention !== undefined && retention !== null) unmodeled.push("prompt_cache_retention")
  if (Object.keys(cache).length === 0) return
  options.cache = cache
  compat.promptCache = true
}
