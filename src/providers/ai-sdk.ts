/**
 * An adapter for Vercel AI SDK users (ai@5 and ai@6, both run on Node 20): a built prompt and a history
 * become the SDK's `ModelMessage[]` and `ToolSet`. The same portability pass as every encoder runs first;
 * for Anthropic models, the cache breakpoints chosen by cache.ts go in as `providerOptions.anthropic`,
 * and thinking signatures travel the way the SDK's providers read them.
 *
 * Import it from `promptline/ai-sdk`: it loads `ai` at runtime, which the main entry point never does.
 */
import {
  type AssistantModelMessage,
  jsonSchema,
  type ModelMessage,
  type ToolModelMessage,
  type ToolResultPart,
  type ToolSet,
  tool,
  type UserModelMessage,
} from "ai"
import type { Diagnostic } from "../diagnostics.js"
import type { Block, Message } from "../history/message.js"
import type { ModelInfo } from "../models/types.js"
import type { EnabledTool } from "../tools/spec.js"
import { type CacheBreakpoint, cacheControl, estimateTokens, planBreakpoints } from "./cache.js"
import type { EncodeInput } from "./encode.js"
import { prepareHistory } from "./portability.js"

/** Provider-specific options as the AI SDK types them on messages and parts. */
type ProviderOptions = NonNullable<ModelMessage["providerOptions"]>

/** Messages and tools for `streamText`/`generateText`, with what changed on the way and the cache breakpoints. */
export interface AiSdkPrompt {
  /** The system prompt first (as a system message, so it can carry cache control), then the history. */
  messages: ModelMessage[]
  /** Tool declarations without `execute`: the caller runs the tools. Empty in the XML dialect. */
  tools: ToolSet
  diagnostics: Diagnostic[]
  breakpoints: CacheBreakpoint[]
}

/** Converts a prompt and a history for the Vercel AI SDK. */
export function toAiSdk(input: EncodeInput): AiSdkPrompt {
  const prepared = prepareHistory(input)
  const diagnostics: Diagnostic[] = [...prepared.diagnostics]
  const provider = input.model.provider
  const messages: ModelMessage[] = []
  const system: ModelMessage | undefined = input.prompt.text
    ? { role: "system", content: input.prompt.text }
    : undefined
  if (system) messages.push(system)

  // The part made for each block, to attach cache control to the block the planner picks.
  const partsOf: ({ providerOptions?: ProviderOptions } | undefined)[][] = []
  const names = new Map<string, string>()
  for (const message of prepared.messages) {
    const parts: ({ providerOptions?: ProviderOptions } | undefined)[] = []
    if (message.role === "assistant") messages.push(assistantMessage(message, input.model, names, parts))
    else messages.push(...userMessages(message, names, parts))
    partsOf.push(parts)
  }

  const tools = prepared.toolCalling === "native" ? toAiSdkTools(input.prompt.tools) : {}
  const breakpoints =
    provider === "anthropic" ? applyCache(input, prepared.messages, system, tools, partsOf, diagnostics) : []
  return { messages, tools, diagnostics, breakpoints }
}

/** Enabled tools as an AI SDK tool set (JSON Schema inputs, no `execute`). */
export function toAiSdkTools(tools: readonly EnabledTool[]): ToolSet {
  const set: ToolSet = {}
  for (const t of tools) {
    set[t.name] = tool({
      description: t.description,
      inputSchema: jsonSchema(JSON.parse(JSON.stringify(t.parameters))),
    })
  }
  return set
}

function assistantMessage(
  message: Message,
  model: ModelInfo,
  names: Map<string, string>,
  parts: ({ providerOptions?: ProviderOptions } | undefined)[],
): AssistantModelMessage {
  const content: Exclude<AssistantModelMessage["content"], string> = []
  for (const block of message.content) {
    let part: (typeof content)[number] | undefined
    if (block.type === "text") part = { type: "text", text: block.text }
    else if (block.type === "thinking") {
      part = { type: "reasoning", text: block.text }
      const meta = reasoningMetadata(block.signature, block.id, model)
      if (meta) part.providerOptions = meta
    } else if (block.type === "redacted_thinking")
      part = { type: "reasoning", text: "", providerOptions: { anthropic: { redactedData: block.data } } }
    else if (block.type === "tool_use") {
      names.set(block.id, block.name)
      part = { type: "tool-call", toolCallId: block.id, toolName: block.name, input: block.input ?? {} }
      if (block.signature && model.provider === "gemini")
        part.providerOptions = { google: { thoughtSignature: block.signature } }
    }
    if (part) content.push(part)
    parts.push(part as { providerOptions?: ProviderOptions } | undefined)
  }
  return { role: "assistant", content }
}

/** Where each provider of the SDK reads a reasoning signature back. */
function reasoningMetadata(
  signature: string | undefined,
  id: string | undefined,
  model: ModelInfo,
): ProviderOptions | undefined {
  if (!signature) return undefined
  if (model.provider === "anthropic") return { anthropic: { signature } }
  if (model.provider === "gemini") return { google: { thoughtSignature: signature } }
  if (model.provider === "openai" && id) return { openai: { itemId: id, reasoningEncryptedContent: signature } }
  return undefined
}

/** A user message: its tool results as one tool message first, then the rest as a user message. */
function userMessages(
  message: Message,
  names: Map<string, string>,
  parts: ({ providerOptions?: ProviderOptions } | undefined)[],
): ModelMessage[] {
  const results: ToolResultPart[] = []
  const content: Exclude<UserModelMessage["content"], string> = []
  for (const block of message.content) {
    const part = userPart(block, names)
    parts.push(part)
    if (!part) continue
    if (part.type === "tool-result") results.push(part)
    else content.push(part)
  }
  const out: ModelMessage[] = []
  if (results.length > 0) out.push({ role: "tool", content: results } satisfies ToolModelMessage)
  if (content.length > 0) out.push({ role: "user", content })
  return out
}

function userPart(
  block: Block,
  names: Map<string, string>,
): ToolResultPart | Exclude<UserModelMessage["content"], string>[number] | undefined {
  if (block.type === "text") return { type: "text", text: block.text }
  if (block.type === "image") return { type: "image", image: block.data, mediaType: block.mediaType }
  if (block.type !== "tool_result") return undefined
  const toolName = names.get(block.toolUseId) ?? "unknown"
  if (typeof block.content === "string")
    return {
      type: "tool-result",
      toolCallId: block.toolUseId,
      toolName,
      output: block.isError ? { type: "error-text", value: block.content } : { type: "text", value: block.content },
    }
  const value = block.content.map((b) =>
    b.type === "text"
      ? { type: "text" as const, text: b.text }
      : { type: "image-data" as const, data: b.data, mediaType: b.mediaType },
  )
  if (block.isError) value.unshift({ type: "text", text: "Error:" })
  return { type: "tool-result", toolCallId: block.toolUseId, toolName, output: { type: "content", value } }
}

function applyCache(
  input: EncodeInput,
  history: readonly Message[],
  system: ModelMessage | undefined,
  tools: ToolSet,
  partsOf: ({ providerOptions?: ProviderOptions } | undefined)[][],
  diagnostics: Diagnostic[],
): CacheBreakpoint[] {
  const toolList = Object.values(tools)
  const layout = {
    tools: input.prompt.tools.map((t) => estimateTokens([t.name, t.description, t.parameters])),
    system: system ? [estimateTokens(input.prompt.text)] : [],
    messages: history.map((m) => ({
      role: m.role,
      blocks: m.content.map((b) => ({ type: b.type, tokens: estimateTokens(b) })),
    })),
  }
  const plan = planBreakpoints(layout, input.model, input.options?.cache)
  diagnostics.push(...plan.diagnostics)
  for (const point of plan.breakpoints) {
    if (!point.placed) continue
    const options = { anthropic: { cacheControl: cacheControl(point.ttl) } }
    if (point.target === "system" && system) system.providerOptions = options
    else if (point.target === "tools") {
      const last = toolList[toolList.length - 1]
      if (last) last.providerOptions = options
    } else {
      const part = partsOf[point.messageIndex!]?.[point.blockIndex!]
      if (part) part.providerOptions = { ...part.providerOptions, ...options }
    }
  }
  return plan.breakpoints
}
