/**
 * A Responses request body a client sent (`POST /v1/responses`), read back into promptline's terms: the inverse
 * of `encodeOpenAIResponses`. What the API accepts and promptline does not model is named, never refused.
 */

import { type Diagnostic, diagnostic } from "../../diagnostics.js"
import { REASONING_EFFORTS, type ReasoningEffort } from "../../models/types.js"
import type { CacheSettings } from "../cache.js"
import { addSource } from "../carried.js"
import { ProviderError } from "../errors.js"
import { type FormatSink, fromOpenAIFormat } from "../openai-chat/response-format.js"
import { obj, str } from "../stream.js"
import type { DecodedRequest, EncodeOptions, RequestPart, RequestRoute } from "../types.js"
import { fromResponsesContextManagement } from "./compaction.js"
import { decodeResponsesInput } from "./input-decode.js"
import { fromOpenAIResponsesTools, fromResponsesToolChoice } from "./tools.js"

/** Top-level fields this decoder reads; any other field present is unmodeled. */
const MODELED = new Set([
  "model",
  "instructions",
  "input",
  "tools",
  "tool_choice",
  "parallel_tool_calls",
  "max_output_tokens",
  "temperature",
  "reasoning",
  "include",
  "store",
  "context_management",
  "stream",
  "prompt_cache_key",
  "prompt_cache_retention",
  "text",
])

const INCLUDE_MODELED = "reasoning.encrypted_content"

/**
 * Decodes a Responses request body. The system prompt is `instructions`; without it, system and developer items
 * at the start of `input` are the system prompt. `previous_response_id` is unmodeled: the earlier turns live on
 * the provider's server, so a translating gateway cannot supply them.
 */
export function decodeOpenAIResponsesRequest(body: unknown, route?: RequestRoute): DecodedRequest {
  const request = obj(body)
  if (!request) throw new ProviderError("invalid-request", "request body: must be a JSON object")
  const model = str(request.model) ?? route?.model
  if (!model) throw new ProviderError("invalid-request", "model: required (a model id)")
  const unmodeled: string[] = []
  const diagnostics: Diagnostic[] = []
  const sources: Partial<Record<RequestPart, string[]>> = {}

  const instructions = request.instructions
  const hasInstructions = typeof instructions === "string"
  if (instructions !== undefined && instructions !== null && !hasInstructions) unmodeled.push("instructions")
  const input = decodeResponsesInput(request.input, !hasInstructions)
  unmodeled.push(...input.unmodeled)
  diagnostics.push(...input.diagnostics)
  const system = hasInstructions ? instructions : input.leadingSystem.join("\n\n")

  const tools = fromOpenAIResponsesTools(request.tools)
  unmodeled.push(...tools.unmodeled)
  if (tools.deferredPaths.length > 0) addSource(sources, "deferredTools", ...tools.deferredPaths)
  const options: EncodeOptions = { stream: request.stream === true || route?.stream === true }
  if (request.tool_choice !== undefined && request.tool_choice !== null) {
    const choice = fromResponsesToolChoice(request.tool_choice)
    if (choice === undefined) unmodeled.push("tool_choice")
    else {
      options.toolChoice = choice
      addSource(sources, "toolChoice", "tool_choice")
    }
  }
  const number = (field: string) => {
    const value = request[field]
    if (value === undefined || value === null) return undefined
    if (typeof value !== "number" || !Number.isFinite(value))
      throw new ProviderError("invalid-request", `${field}: must be a number`)
    return value
  }
  const maxTokens = number("max_output_tokens")
  if (maxTokens !== undefined) {
    options.maxTokens = maxTokens
    addSource(sources, "maxTokens", "max_output_tokens")
  }
  const temperature = number("temperature")
  if (temperature !== undefined) {
    options.temperature = temperature
    addSource(sources, "temperature", "temperature")
  }
  if (typeof request.parallel_tool_calls === "boolean") {
    options.parallelToolCalls = request.parallel_tool_calls
    addSource(sources, "parallelToolCalls", "parallel_tool_calls")
  }
  if (typeof request.store === "boolean") {
    options.store = request.store
    addSource(sources, "store", "store")
  }
  readReasoning(request.reasoning, options, unmodeled)
  if (options.thinking !== undefined) addSource(sources, "thinking", "reasoning.effort")
  const format = readText(request.text, { unmodeled, sources })
  if (format) options.responseFormat = format
  readInclude(request.include, unmodeled)
  const cache = readCache(request, unmodeled)
  if (cache) options.cache = cache
  const managed = fromResponsesContextManagement(request.context_management, unmodeled)
  if (managed) {
    options.contextManagement = managed
    addSource(sources, "contextManagement.compaction", "context_management")
  }

  for (const key of Object.keys(request))
    if (!MODELED.has(key) && request[key] !== undefined && request[key] !== null) unmodeled.push(key)
  if (typeof request.previous_response_id === "string")
    diagnostics.push(
      diagnostic(
        "warning",
        "previous-response-unmodeled",
        "previous_response_id: the earlier turns are stored by the provider, not in this request; only same-format pass-through keeps them",
      ),
    )
  return {
    model,
    prompt: {
      text: system,
      tools: tools.tools,
      ...(tools.deferredTools.length > 0 ? { deferredTools: tools.deferredTools } : {}),
    },
    messages: input.messages,
    options,
    unmodeled,
    sources,
    diagnostics,
  }
}

/** `reasoning`: the effort (`none` turns thinking off); a summary other than `auto` and other keys are unmodeled. */
function readReasoning(value: unknown, options: EncodeOptions, unmodeled: string[]): void {
  if (value === undefined || value === null) return
  const reasoning = obj(value)
  if (!reasoning) throw new ProviderError("invalid-request", "reasoning: must be an object")
  for (const [key, field] of Object.entries(reasoning)) {
    if (field === undefined || field === null) continue
    if (key === "effort") {
      if (field === "none") options.thinking = false
      else if (REASONING_EFFORTS.includes(field as ReasoningEffort))
        options.thinking = { effort: field as ReasoningEffort }
      else unmodeled.push("reasoning.effort")
    } else if (!(key === "summary" && field === "auto")) unmodeled.push(`reasoning.${key}`)
  }
}

/** `text`: its `format` is the structured output (`text` is the default); `verbosity` and other keys are unmodeled. */
function readText(value: unknown, sink: FormatSink) {
  if (value === undefined || value === null) return undefined
  const text = obj(value)
  if (!text) throw new ProviderError("invalid-request", "text: must be an object")
  for (const key of Object.keys(text)) if (key !== "format" && text[key] != null) sink.unmodeled.push(`text.${key}`)
  return fromOpenAIFormat(text.format, "text.format", true, sink)
}

/** `include`: encrypted reasoning is how promptline always works statelessly; anything else is unmodeled. */
function readInclude(value: unknown, unmodeled: string[]): void {
  if (value === undefined || value === null) return
  if (!Array.isArray(value)) throw new ProviderError("invalid-request", "include: must be a list")
  value.forEach((entry, i) => {
    if (entry !== INCLUDE_MODELED) unmodeled.push(`include[${i}]`)
  })
}

/** `prompt_cache_key` → the session id, `prompt_cache_retention` → the retention. */
function readCache(request: Record<string, unknown>, unmodeled: string[]): CacheSettings | undefined {
  const cache: CacheSettings = {}
  const key = request.prompt_cache_key
  if (typeof key === "string") cache.sessionId = key
  else if (key !== undefined && key !== null) unmodeled.push("prompt_cache_key")
  const retention = request.prompt_cache_retention
  if (retention === "in_memory" || retention === "24h") cache.retention = retention
  else if (retention !== undefined && retention !== null) unmodeled.push("prompt_cache_retention")
  return Object.keys(cache).length > 0 ? cache : undefined
}
