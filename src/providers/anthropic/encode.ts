/**
 * Anthropic Messages API request bodies: system as text blocks, tools with `input_schema`, content blocks
 * close to our own, thinking with its signature, and `cache_control` breakpoints chosen by cache.ts.
 */
import { type Diagnostic, diagnostic } from "../../diagnostics.js"
import type { Block, ImageBlock, Message, ThinkingBlock } from "../../history/message.js"
import { fitEffort, fitThinkingOff } from "../../models/thinking.js"
import { type CacheBreakpoint, cacheControl, estimateTokens, planBreakpoints } from "../cache.js"
import { choiceOffered, withUncarried } from "../carried.js"
import { prepareHistory } from "../portability.js"
import { systemReminder } from "../system-message.js"
import { repairTurns } from "../turns.js"
import type { EncodeInput, EncodeResult, ReasoningEffort, RequestPart } from "../types.js"
import { anthropicEdits, compactionToWire } from "./context-edits.js"
import { referencesToWire, toolSearchToWire } from "./tool-search-blocks.js"
import { ANTHROPIC_REGEX_TOOL_SEARCH, ANTHROPIC_TOOL_SEARCH, toAnthropicToolChoice, toAnthropicTools } from "./tools.js"
import type {
  AnthropicRequest,
  AnthropicToolChoice,
  Base64ImageSource,
  CacheControlEphemeral,
  ContentBlockParam,
  ImageBlockParam,
  MessageParam,
  TextBlockParam,
  ThinkingConfigParam,
  ToolResultBlockParam,
} from "./wire-types.js"

export type { AnthropicRequest } from "./wire-types.js"
export { ANTHROPIC_REGEX_TOOL_SEARCH, ANTHROPIC_TOOL_SEARCH }

const MEDIA_TYPES = new Set<string>(["image/jpeg", "image/png", "image/gif", "image/webp"])

/** The content of an error tool result that returned no text: Anthropic refuses an error result without content. */
export const EMPTY_ERROR_RESULT_TEXT = "The tool failed without output."

/** Anthropic's smallest thinking budget. */
const MIN_THINKING_BUDGET = 1024

/** Encodes a request for the Anthropic Messages API. */
export function encodeAnthropic(input: EncodeInput): EncodeResult<AnthropicRequest> {
  const options = input.options ?? {}
  // Tool searches and references go back as they are only to a body that defers tools (the API loads from them).
  const deferring = (input.prompt.toolCalling ?? "native") === "native" && deferredSent(input)
  const prepared = prepareHistory(input, "anthropic", deferring)
  const diagnostics: Diagnostic[] = [...prepared.diagnostics]
  const uncarried: RequestPart[] = []
  const native = prepared.toolCalling === "native" && (input.prompt.tools.length > 0 || deferring)
  if (
    (input.prompt.deferredTools?.length ?? 0) > 0 &&
    !deferring &&
    !input.prompt.tools.some((t) => t.kind === "tool_search")
  )
    uncarried.push("deferredTools")

  const system: TextBlockParam[] = input.prompt.text ? [{ type: "text", text: input.prompt.text }] : []
  const tools = native ? anthropicTools(input, deferring) : []
  const encoded = placeSystemMessages(
    prepared.messages.map((m) => encodeMessage(m, diagnostics)).filter((m) => blocksOf(m).length > 0),
    input.model.capabilities.systemMessages === true,
    diagnostics,
  )
  const turns = repairTurns(encoded, {
    roleOf: (m) => (m.role === "system" ? "other" : m.role),
    userTurn: (text): MessageParam => ({ role: "user", content: [{ type: "text", text }] }),
    merge: (a, b) => ({ ...a, content: [...blocksOf(a), ...blocksOf(b)] }) as MessageParam,
    userFirst: true,
  })
  const messages = turns.messages
  diagnostics.push(...turns.diagnostics)

  const maxTokens = options.maxTokens ?? input.model.maxOutput
  const body: AnthropicRequest = { model: input.model.id, max_tokens: maxTokens, messages }
  if (system.length > 0) body.system = system
  if (tools.length > 0) body.tools = tools
  // A choice of a tool the body does not offer (none at all, or a deferred one) cannot go with it.
  const offered = options.toolChoice === undefined || choiceOffered(options.toolChoice, tools.filter(isLoaded))
  // Without the choice, parallel calls can still be turned off (`auto` with `disable_parallel_tool_use`).
  const choice = native ? toAnthropicToolChoice(offered ? options : { ...options, toolChoice: undefined }) : undefined
  if (choice) body.tool_choice = choice
  if (!native && options.toolChoice !== undefined && options.toolChoice !== "auto")
    diagnostics.push(diagnostic("info", "tool-choice-ignored", "tool_choice has no effect without native tools"))
  if (!offered) uncarried.push("toolChoice")

  const thinking = thinkingConfig(
    input,
    maxTokens,
    choice,
    // Before merging: which turn a request continues is read from the messages as recorded.
    encoded.map((m) => ({ role: m.role, content: blocksOf(m) })),
    diagnostics,
  )
  if (thinking.config) body.thinking = thinking.config
  if (!thinking.carried) uncarried.push("thinking")
  // Thinking off on a model that cannot turn it off becomes its least effort (see thinkingConfig).
  const wanted = options.thinking === false ? input.model.thinking?.efforts?.[0] : options.thinking?.effort
  if (wanted !== undefined && thinking.config && thinking.config.type !== "disabled") {
    const fitted = fitEffort(input.model, anthropicEffort(wanted))
    if (fitted.diagnostic) diagnostics.push(fitted.diagnostic)
    body.output_config = { effort: anthropicEffort(fitted.value) }
  }
  const format = options.responseFormat
  if (format?.type === "json-schema")
    body.output_config = { ...body.output_config, format: { type: "json_schema", schema: format.schema } }
  else if (format) {
    diagnostics.push(
      diagnostic(
        "warning",
        "response-format-unsupported",
        "Anthropic takes structured output with a schema only; JSON mode not sent",
      ),
    )
    uncarried.push("responseFormat")
  }
  if (options.temperature !== undefined) {
    diagnostics.push(
      diagnostic("warning", "temperature-unsupported", "the Messages API no longer takes temperature; not sent"),
    )
    uncarried.push("temperature")
  }
  if (options.store === true) uncarried.push("store")
  let headers: Record<string, string> | undefined
  if (options.contextManagement) {
    const { edits, betas } = anthropicEdits(options.contextManagement)
    if (edits.length > 0) {
      body.context_management = { edits }
      headers = { "anthropic-beta": betas.join(",") }
    }
  }
  body.stream = options.stream ?? true

  const breakpoints = applyCache(body, system, input, diagnostics)
  return { body, diagnostics, breakpoints, ...withUncarried(uncarried), ...(headers ? { headers } : {}) }
}

/** The content blocks of an encoded message (the encoder always writes arrays). */
function blocksOf(message: MessageParam): ContentBlockParam[] {
  return message.content as ContentBlockParam[]
}

/** Whether a text is something Anthropic takes: it refuses empty and whitespace-only text blocks. */
const sendable = (text: string) => text.trim() !== ""

function encodeMessage(message: Message, diagnostics: Diagnostic[]): MessageParam {
  const content: ContentBlockParam[] = []
  const blocks = message.role === "assistant" ? joinSplitThinking(message.content) : message.content
  for (const block of blocks) {
    if (block.type === "tool_search") {
      content.push(...toolSearchToWire(block))
      continue
    }
    const out = encodeBlock(block, diagnostics)
    if (out) content.push(out)
  }
  if (message.role === "system")
    return { role: "system", content: content.filter((b): b is TextBlockParam => b.type === "text") }
  return { role: message.role, content }
}

/**
 * One thinking block again from its pieces: a client format that carries thinking text and signature apart
 * (Gemini's thought parts, then the signature on a part of its own) sends back unsigned thinking pieces
 * followed by an empty signed block. The signature covers the whole text, so the pieces are joined as they
 * were streamed, without a separator.
 */
function joinSplitThinking(blocks: readonly Block[]): Block[] {
  const out: Block[] = []
  let pieces: ThinkingBlock[] = []
  for (const block of blocks) {
    if (block.type === "thinking" && !block.signature && block.text !== "") {
      pieces.push(block)
      continue
    }
    if (block.type === "thinking" && block.signature && block.text === "" && pieces.length > 0) {
      out.push({ ...block, text: pieces.map((p) => p.text).join("") })
      pieces = []
      continue
    }
    out.push(...pieces, block)
    pieces = []
  }
  return [...out, ...pieces]
}

/**
 * Keeps a system message as a `system` message where the API takes one: on a model that accepts them, right
 * after a user turn. Elsewhere its text goes into a user turn as a `<system-reminder>`, which the turn repair
 * then joins to the user turn beside it.
 */
function placeSystemMessages(messages: MessageParam[], native: boolean, diagnostics: Diagnostic[]): MessageParam[] {
  let inlined = 0
  const out: MessageParam[] = []
  for (const m of messages) {
    const before = out[out.length - 1]
    if (m.role !== "system") out.push(m)
    // A run of system messages after a user turn becomes one.
    else if (native && before?.role === "system")
      out[out.length - 1] = { ...before, content: [...textBlocks(before), ...textBlocks(m)] }
    else if (native && before?.role === "user") out.push(m)
    else {
      inlined++
      const text = textBlocks(m)
        .map((b) => b.text)
        .join("\n\n")
      out.push({ role: "user", content: [{ type: "text", text: systemReminder(text) }] })
    }
  }
  if (inlined > 0)
    diagnostics.push(
      diagnostic(
        "info",
        "system-message-inlined",
        `${inlined} system message${inlined === 1 ? "" : "s"} sent as <system-reminder> text in a user turn: ${native ? "not after a user turn" : "the model takes no system messages in the conversation"}`,
      ),
    )
  return out
}

/** The text blocks of an encoded system message. */
function textBlocks(message: MessageParam): TextBlockParam[] {
  return typeof message.content === "string"
    ? [{ type: "text", text: message.content }]
    : (message.content as ContentBlockParam[]).filter((b): b is TextBlockParam => b.type === "text")
}

function encodeBlock(block: Block, diagnostics: Diagnostic[]): ContentBlockParam | undefined {
  switch (block.type) {
    case "text":
      return sendable(block.text) ? { type: "text", text: block.text } : undefined
    case "image":
      return encodeImage(block, diagnostics)
    case "tool_use": {
      const isObject = block.input !== null && typeof block.input === "object" && !Array.isArray(block.input)
      if (!isObject && block.input !== undefined)
        diagnostics.push(
          diagnostic("warning", "tool-input-not-object", `tool call ${block.id}: input is not an object; sent as {}`),
        )
      return { type: "tool_use", id: block.id, name: block.name, input: isObject ? block.input : {} }
    }
    case "tool_result": {
      // Blank result text is left out; an error result needs some content, so it gets a short one.
      const out: ToolResultBlockParam = { type: "tool_result", tool_use_id: block.toolUseId }
      if (typeof block.content === "string") {
        if (sendable(block.content)) out.content = block.content
      } else {
        const content = block.content.flatMap((b): (TextBlockParam | ImageBlockParam)[] => {
          if (b.type === "text") return sendable(b.text) ? [{ type: "text", text: b.text }] : []
          return [encodeImage(b, diagnostics)]
        })
        if (content.length > 0) out.content = content
      }
      if (block.references !== undefined && block.references.length > 0) {
        const before =
          typeof out.content === "string" ? [{ type: "text" as const, text: out.content }] : (out.content ?? [])
        out.content = [...before, ...referencesToWire(block.references)]
      }
      if (block.isError) {
        out.content ??= EMPTY_ERROR_RESULT_TEXT
        out.is_error = true
      }
      return out
    }
    case "thinking":
      // Portability kept only this model's thinking; without a signature Anthropic cannot take it back.
      if (block.signature) return { type: "thinking", thinking: block.text, signature: block.signature }
      diagnostics.push(diagnostic("info", "thinking-unsigned", "thinking without a signature sent as text"))
      return sendable(block.text) ? { type: "text", text: block.text } : undefined
    case "redacted_thinking":
      return { type: "redacted_thinking", data: block.data }
    case "compaction":
      // Portability kept only Anthropic's own compaction blocks.
      return compactionToWire(block)
    case "tool_search":
      // Two blocks: written by encodeMessage.
      return undefined
  }
}

function encodeImage(block: ImageBlock, diagnostics: Diagnostic[]): ImageBlockParam | TextBlockParam {
  if (!MEDIA_TYPES.has(block.mediaType)) {
    diagnostics.push(diagnostic("warning", "image-type-unsupported", `image type ${block.mediaType} not accepted`))
    return { type: "text", text: `[image omitted: type ${block.mediaType} is not supported]` }
  }
  const source: Base64ImageSource = {
    type: "base64",
    media_type: block.mediaType as Base64ImageSource["media_type"],
    data: block.data,
  }
  return { type: "image", source }
}

function anthropicEffort(effort: ReasoningEffort): "low" | "medium" | "high" | "xhigh" | "max" {
  return effort === "minimal" ? "low" : effort
}

function thinkingConfig(
  input: EncodeInput,
  maxTokens: number,
  choice: AnthropicToolChoice | undefined,
  history: readonly { role: string; content: readonly { type: string }[] }[],
  diagnostics: Diagnostic[],
): { config?: ThinkingConfigParam; carried: boolean } {
  const requested = input.options?.thinking
  if (requested === undefined) return { carried: true }
  if (requested === false) {
    const off = fitThinkingOff(input.model)
    if (off.off) return { config: { type: "disabled" }, carried: true }
    // Always-on adaptive thinking: the API refuses `disabled`.
    diagnostics.push(off.diagnostic)
    return { config: { type: "adaptive" }, carried: false }
  }
  if (!input.model.capabilities.thinking) {
    diagnostics.push(diagnostic("warning", "thinking-unsupported", `${input.model.id} does not think; not requested`))
    return { carried: false }
  }
  if (choice && (choice.type === "any" || choice.type === "tool")) {
    diagnostics.push(
      diagnostic("warning", "thinking-with-forced-tool", "thinking is off: Anthropic refuses it when a tool is forced"),
    )
    return { carried: false }
  }
  // The assistant turn being continued must start with thinking when thinking is on; a turn made by another
  // model (or without thinking) has none, and the API would refuse the request. The turn starts at the last
  // user message that answers no tool call (results may carry text blocks too: notes, environment updates).
  const lastUser = history.findLastIndex((m) => m.role === "user" && !m.content.some((b) => b.type === "tool_result"))
  const open = history
    .slice(lastUser + 1)
    .find((m) => m.role === "assistant" && m.content.some((b) => b.type === "tool_use"))
  const first = open?.content[0]?.type
  if (open && first !== "thinking" && first !== "redacted_thinking") {
    diagnostics.push(
      diagnostic(
        "warning",
        "thinking-turn-unsigned",
        "thinking is off for this request: the tool-use turn it continues has no thinking block",
      ),
    )
    return { carried: false }
  }
  if (requested.budgetTokens !== undefined) {
    let budget = Math.max(MIN_THINKING_BUDGET, requested.budgetTokens)
    if (budget >= maxTokens) {
      budget = Math.max(MIN_THINKING_BUDGET, maxTokens - 1)
      diagnostics.push(
        diagnostic("warning", "thinking-budget-capped", `thinking budget capped to ${budget}: below max_tokens`),
      )
    }
    return { config: { type: "enabled", budget_tokens: budget }, carried: true }
  }
  return { config: { type: "adaptive" }, carried: true }
}

/** Whether the body sends the prompt's deferred tools with `defer_loading` (native tool search is asked for). */
function deferredSent(input: EncodeInput): boolean {
  return Boolean(input.options?.nativeToolSearch) && (input.prompt.deferredTools?.length ?? 0) > 0
}

/** A tool of the body the model is offered up front: not deferred, not the search tool. */
function isLoaded(tool: NonNullable<AnthropicRequest["tools"]>[number]): boolean {
  return !("type" in tool) && tool.defer_loading !== true
}

/**
 * The tools of the body. With `nativeToolSearch` and deferred tools, promptline's search and call tools give way
 * to Anthropic's tool search: the deferred tools come first with `defer_loading` (so a tools cache breakpoint,
 * which goes on the last tool, lands on a loaded one), then the loaded tools, then the search tool (BM25 or
 * regex; none for `client`, whose client searches on its own).
 */
function anthropicTools(input: EncodeInput, deferring: boolean): NonNullable<AnthropicRequest["tools"]> {
  const deferred = input.prompt.deferredTools ?? []
  if (!deferring) return toAnthropicTools(input.prompt.tools)
  const search = input.options?.nativeToolSearch
  const loaded = input.prompt.tools.filter((t) => t.kind !== "tool_search" && t.kind !== "tool_call")
  return [
    ...toAnthropicTools(deferred).map((t) => ({ ...t, defer_loading: true })),
    ...toAnthropicTools(loaded),
    ...(search === "client" ? [] : [{ ...(search === "regex" ? ANTHROPIC_REGEX_TOOL_SEARCH : ANTHROPIC_TOOL_SEARCH) }]),
  ]
}

/** Writes the planned `cache_control` breakpoints into the body. */
function applyCache(
  body: AnthropicRequest,
  system: TextBlockParam[],
  input: EncodeInput,
  diagnostics: Diagnostic[],
): CacheBreakpoint[] {
  const settings = input.options?.cache
  const layout = {
    tools: (body.tools ?? []).map(estimateTokens),
    system: system.map(estimateTokens),
    messages: body.messages.map((m) => ({
      role: m.role,
      blocks: (m.content as ContentBlockParam[]).map((b) => ({ type: b.type, tokens: estimateTokens(b) })),
    })),
  }
  const plan = planBreakpoints(layout, input.model, settings)
  diagnostics.push(...plan.diagnostics)
  for (const point of plan.breakpoints) {
    if (!point.placed) continue
    const control = cacheControl(point.ttl)
    if (point.target === "system") system[point.blockIndex!]!.cache_control = control
    else if (point.target === "tools")
      (body.tools![point.blockIndex!] as { cache_control?: unknown }).cache_control = control
    else {
      const content = body.messages[point.messageIndex!]!.content as ContentBlockParam[]
      ;(content[point.blockIndex!] as { cache_control?: CacheControlEphemeral }).cache_control = control
    }
  }
  return plan.breakpoints
}
