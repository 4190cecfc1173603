/**
 * An Anthropic Messages request a client sent (`POST /v1/messages`, with or without `?beta=true`), read back
 * into promptline's terms: the inverse of `encodeAnthropic`. What promptline does not model is listed as JSON
 * paths in `unmodeled`, never refused; a body the API would refuse for its shape is an `invalid-request` error.
 */
import { type Diagnostic, diagnostic } from "../../diagnostics.js"
import type { ReasoningEffort } from "../../models/types.js"
import type { CacheSettings } from "../cache.js"
import { addSource } from "../carried.js"
import type { ContextManagementOptions } from "../context-management.js"
import { obj, str } from "../stream.js"
import type {
  DecodedRequest,
  EncodeOptions,
  RequestPart,
  RequestRoute,
  ResponseFormat,
  ThinkingOptions,
} from "../types.js"
import { fromAnthropicEdits } from "./context-edits.js"
import { type DecodeState, decodeMessages, type FoundBreakpoint, invalid, ttlOf } from "./message-decode.js"
import { fromAnthropicToolChoice, fromAnthropicTools } from "./tools.js"

/** Top-level fields the decoder reads in full; every other field present is listed as unmodeled. */
const MODELED = new Set([
  "model",
  "max_tokens",
  "messages",
  "system",
  "tools",
  "tool_choice",
  "thinking",
  "stream",
  "temperature",
  "output_config",
  "output_format",
  "cache_control",
  "context_management",
])

/** The context-management option each Anthropic edit type is read into. */
const EDIT_OPTIONS: Readonly<Record<string, keyof ContextManagementOptions>> = {
  clear_tool_uses_20250919: "clearToolUses",
  clear_thinking_20251015: "clearThinking",
  compact_20260112: "compaction",
}

/** The efforts `output_config.effort` takes, each one of promptline's efforts of the same name. */
const EFFORTS: ReadonlySet<string> = new Set<ReasoningEffort>(["low", "medium", "high", "xhigh", "max"])

/** Reads a Messages request body. Throws a `ProviderError` (`invalid-request`) naming the field at fault. */
export function decodeAnthropicRequest(body: unknown, route?: RequestRoute): DecodedRequest {
  const request = obj(body)
  if (!request) throw invalid("request body: must be a JSON object")
  const state: DecodeState = { unmodeled: [], breakpoints: [] }
  const diagnostics: Diagnostic[] = []
  const sources: Partial<Record<RequestPart, string[]>> = {}

  const model = str(request.model) ?? route?.model
  if (model === undefined || model === "") throw invalid("model: a model id is required")

  const tools = fromAnthropicTools(request.tools)
  state.unmodeled.push(...tools.unmodeled)
  if (Array.isArray(request.tools))
    request.tools.forEach((t) => {
      const ttl = ttlOf(obj(t)?.cache_control)
      if (ttl) state.breakpoints.push({ target: "tools", ttl })
    })
  const system = decodeSystem(request.system, state, diagnostics)
  const messages = decodeMessages(request.messages, state)

  const options: EncodeOptions = { stream: request.stream === true }
  if (request.max_tokens !== undefined) {
    if (typeof request.max_tokens !== "number" || !Number.isInteger(request.max_tokens) || request.max_tokens < 1)
      throw invalid("max_tokens: a positive integer is required")
    options.maxTokens = request.max_tokens
    addSource(sources, "maxTokens", "max_tokens")
  }
  if (request.temperature !== undefined) {
    if (typeof request.temperature !== "number") throw invalid("temperature: a number is required")
    options.temperature = request.temperature
    addSource(sources, "temperature", "temperature")
  }
  const choice = fromAnthropicToolChoice(request.tool_choice)
  Object.assign(options, choice)
  if (choice.toolChoice !== undefined) addSource(sources, "toolChoice", "tool_choice")
  if (choice.parallelToolCalls !== undefined)
    addSource(sources, "parallelToolCalls", "tool_choice.disable_parallel_tool_use")
  const thinking = decodeThinking(request.thinking, request.output_config, state, sources)
  if (thinking !== undefined) options.thinking = thinking
  const format = decodeFormat(request, state, sources)
  if (format) options.responseFormat = format
  options.cache = cacheSettings(state.breakpoints, request.cache_control, state)
  // The BM25 search keeps promptline's original spelling of the option (`true`).
  if (tools.nativeToolSearch) {
    options.nativeToolSearch = tools.nativeToolSearch === "bm25" ? true : tools.nativeToolSearch
    addSource(sources, "nativeToolSearch", ...(tools.searchPath ? [tools.searchPath] : tools.deferredPaths))
  }
  if (tools.deferredPaths.length > 0) addSource(sources, "deferredTools", ...tools.deferredPaths)
  const managed = fromAnthropicEdits(request.context_management, state.unmodeled)
  if (managed) {
    options.contextManagement = managed
    const edits = obj(request.context_management)?.edits as unknown[]
    edits.forEach((edit, i) => {
      const key = EDIT_OPTIONS[String(obj(edit)?.type)]
      if (key) addSource(sources, `contextManagement.${key}`, `context_management.edits[${i}]`)
    })
  }

  for (const key of Object.keys(request)) if (!MODELED.has(key)) state.unmodeled.push(key)
  return {
    model,
    prompt: {
      text: system,
      tools: tools.tools,
      ...(tools.deferredTools.length > 0 ? { deferredTools: tools.deferredTools } : {}),
      toolCalling: "native",
    },
    messages,
    options,
    unmodeled: state.unmodeled,
    sources,
    diagnostics,
  }
}

/** `system` as one text: a string, or text blocks joined by blank lines (the encoder writes one block). */
function decodeSystem(value: unknown, state: DecodeState, diagnostics: Diagnostic[]): string {
  if (value === undefined || value === null) return ""
  if (typeof value === "string") return value
  if (!Array.isArray(value)) throw invalid("system: must be a string or a list of text blocks")
  const texts = value.map((entry, i) => {
    const at = `system[${i}]`
    const block = obj(entry)
    if (block?.type !== "text") throw invalid(`${at}: the system prompt holds text blocks only`)
    if (typeof block.text !== "string") throw invalid(`${at}.text: a string is required`)
    const ttl = ttlOf(block.cache_control)
    if (ttl) state.breakpoints.push({ target: "system", ttl })
    for (const key of Object.keys(block))
      if (key === "citations" ? block.citations != null : !["type", "text", "cache_control"].includes(key))
        state.unmodeled.push(`${at}.${key}`)
    return block.text
  })
  if (texts.length > 1)
    diagnostics.push(
      diagnostic(
        "info",
        "system-blocks-joined",
        `${texts.length} system blocks read as one text, joined by blank lines`,
      ),
    )
  return texts.join("\n\n")
}

/**
 * `thinking` and `output_config.effort` as promptline's thinking: `enabled` gives its budget, `adaptive` an
 * empty request (the model decides), `disabled` false; the effort joins whichever is on.
 */
function decodeThinking(
  value: unknown,
  outputConfig: unknown,
  state: DecodeState,
  sources: Partial<Record<RequestPart, string[]>>,
): ThinkingOptions | false | undefined {
  let thinking: ThinkingOptions | false | undefined
  if (value !== undefined && value !== null) {
    const config = obj(value)
    if (!config) throw invalid("thinking: must be an object with a type")
    const known = ["type"]
    if (config.type === "enabled") {
      if (typeof config.budget_tokens !== "number") throw invalid("thinking.budget_tokens: a number is required")
      thinking = { budgetTokens: config.budget_tokens }
      known.push("budget_tokens")
    } else if (config.type === "adaptive") thinking = {}
    else if (config.type === "disabled") thinking = false
    else state.unmodeled.push("thinking")
    if (thinking !== undefined) {
      addSource(sources, "thinking", "thinking")
      for (const key of Object.keys(config)) if (!known.includes(key)) state.unmodeled.push(`thinking.${key}`)
    }
  }
  if (outputConfig === undefined || outputConfig === null) return thinking
  const output = obj(outputConfig)
  if (!output) throw invalid("output_config: must be an object")
  for (const key of Object.keys(output)) {
    const effort = output[key]
    if (key === "format" || effort === null) continue
    if (key === "effort" && typeof effort === "string" && EFFORTS.has(effort) && thinking !== false) {
      thinking = { ...thinking, effort: effort as ReasoningEffort }
      addSource(sources, "thinking", "output_config.effort")
    } else state.unmodeled.push(`output_config.${key}`)
  }
  return thinking
}

/**
 * Structured output: `output_config.format`, or the deprecated top-level `output_format` (the same shape), as a
 * JSON schema the answer must match. A format of another type is unmodeled.
 */
function decodeFormat(
  request: Record<string, unknown>,
  state: DecodeState,
  sources: Partial<Record<RequestPart, string[]>>,
): ResponseFormat | undefined {
  const candidates: [string, unknown][] = [
    ["output_config.format", obj(request.output_config)?.format],
    ["output_format", request.output_format],
  ]
  let found: ResponseFormat | undefined
  for (const [at, value] of candidates) {
    if (value === undefined || value === null) continue
    const format = obj(value)
    const schema = obj(format?.schema)
    if (found || format?.type !== "json_schema" || !schema) {
      state.unmodeled.push(at)
      continue
    }
    found = { type: "json-schema", schema }
    for (const key of Object.keys(format)) if (key !== "type" && key !== "schema") state.unmodeled.push(`${at}.${key}`)
    addSource(sources, "responseFormat", at)
    addSource(sources, "responseFormat.schema", `${at}.schema`)
  }
  return found
}

/**
 * The cache settings that best describe the client's breakpoints: the lifetime of the first (the longest-lived
 * prefix), a tools and a system breakpoint when it placed one, and as many message breakpoints as it placed.
 * A top-level `cache_control` (automatic caching) asks for caching with the default placement. No
 * breakpoint at all is `false`: the client asked for no caching.
 */
function cacheSettings(found: FoundBreakpoint[], automatic: unknown, state: DecodeState): CacheSettings | false {
  const auto = automatic === undefined || automatic === null ? undefined : ttlOf(automatic)
  if (automatic !== undefined && automatic !== null && auto === undefined) state.unmodeled.push("cache_control")
  if (found.length === 0) return auto === undefined ? false : { ttl: auto }
  const messages = new Set(found.filter((b) => b.target === "message").map((b) => b.messageIndex))
  return {
    ttl: found[0]!.ttl,
    breakpoints: {
      tools: found.some((b) => b.target === "tools"),
      system: found.some((b) => b.target === "system"),
      userMessages: messages.size,
    },
  }
}
