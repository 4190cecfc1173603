/**
 * An adapter for Vercel AI SDK users (ai@5, ai@6 and ai@7): a built prompt and a history become the SDK's
 * system message, `ModelMessage[]` and `ToolSet`. The same portability pass as every encoder runs first;
 * for Anthropic models, the cache breakpoints chosen by cache.ts go in as `providerOptions.anthropic`,
 * and thinking signatures travel the way the SDK's providers read them. `aiSdkCall` places the system
 * prompt where each major version of the SDK takes it without a warning.
 *
 * Import it from `promptline/ai-sdk`: it loads `ai` at runtime, which the main entry point never does.
 */
import type {
  AssistantModelMessage,
  ModelMessage,
  SystemModelMessage,
  ToolModelMessage,
  ToolResultPart,
  ToolSet,
  UserModelMessage,
} from "ai"
import type { Diagnostic } from "../diagnostics.js"
import { type Block, type Message, text } from "../history/message.js"
import type { ModelInfo } from "../models/types.js"
import { loadOptionalPeer } from "../optional-peer.js"
import type { EnabledTool } from "../tools/spec.js"
import { AI_PEER } from "./ai-sdk-peer.js"
import { type CacheBreakpoint, cacheControl, estimateTokens, planBreakpoints } from "./cache.js"
import { prepareHistory } from "./portability.js"
import { systemReminder, systemText } from "./system-message.js"
import type { EncodeInput } from "./types.js"

// `ai` is an optional peer: loaded here, so that importing this entry without it names the package to install
// (a `peer-missing` PromptlineError) instead of failing with Node's ERR_MODULE_NOT_FOUND.
const { jsonSchema, tool } = await loadOptionalPeer(AI_PEER, () => import("ai"))

/** Provider-specific options as the AI SDK types them on messages and parts. */
type ProviderOptions = NonNullable<ModelMessage["providerOptions"]>

/** Messages and tools for `streamText`/`generateText`, with what changed on the way and the cache breakpoints. */
export interface AiSdkPrompt {
  /** The system prompt as a system message, so it can carry cache control; absent when the prompt is empty. */
  system: SystemModelMessage | undefined
  /** The AI SDK major version the parts are shaped for. */
  version: AiSdkMajor
  /** The history, without the system prompt. */
  messages: ModelMessage[]
  /** Tool declarations without `execute`: the caller runs the tools. Empty in the XML dialect. */
  tools: ToolSet
  diagnostics: Diagnostic[]
  breakpoints: CacheBreakpoint[]
}

/** Converts a prompt and a history for the Vercel AI SDK of major `version` (default 6). */
export function toAiSdk(input: EncodeInput, version: AiSdkMajor = 6): AiSdkPrompt {
  const prepared = prepareHistory(input)
  const diagnostics: Diagnostic[] = [...prepared.diagnostics]
  const provider = input.model.provider
  const messages: ModelMessage[] = []
  const system: SystemModelMessage | undefined = input.prompt.text
    ? { role: "system", content: input.prompt.text }
    : undefined

  // The part made for each block, to attach cache control to the block the planner picks.
  const partsOf: ({ providerOptions?: ProviderOptions } | undefined)[][] = []
  const names = new Map<string, string>()
  // A system message mid-conversation travels as a <system-reminder> in a user message: the AI SDK versions
  // differ on system messages inside `messages` (5 and 6 refuse them without allowSystemInMessages).
  const history = prepared.messages.map(
    (m): Message => (m.role === "system" ? { ...m, role: "user", content: [text(systemReminder(systemText(m)))] } : m),
  )
  for (const message of history) {
    const parts: ({ providerOptions?: ProviderOptions } | undefined)[] = []
    if (message.role === "assistant") messages.push(assistantMessage(message, input.model, names, parts))
    else messages.push(...userMessages(message, names, parts, version))
    partsOf.push(parts)
  }

  const tools = prepared.toolCalling === "native" ? toAiSdkTools(input.prompt.tools) : {}
  const breakpoints = provider === "anthropic" ? applyCache(input, history, system, tools, partsOf, diagnostics) : []
  return { system, version, messages, tools, diagnostics, breakpoints }
}

/** The major versions of the AI SDK the adapter is tested with. */
export type AiSdkMajor = 5 | 6 | 7

/** The prompt fields of a `streamText`/`generateText` call, to spread into its options. */
export interface AiSdkCallFields {
  /** ai@6: the system message (cache control included). */
  system?: SystemModelMessage
  /** ai@7: the system message under the option's current name. */
  instructions?: SystemModelMessage
  messages: ModelMessage[]
  tools: ToolSet
  /** ai@5: its `system` option takes a string only, so the system message leads `messages` instead. */
  allowSystemInMessages?: true
}

/**
 * Places a converted prompt where its AI SDK version takes it: `system` on 6, `instructions` on 7, and on 5
 * (whose `system` option is a plain string, which cannot carry cache control) as the first message with
 * `allowSystemInMessages`, so no version warns or throws.
 */
export function aiSdkCall(prompt: AiSdkPrompt): AiSdkCallFields {
  const { system, messages, tools, version: major } = prompt
  if (!system) return { messages, tools }
  if (major === 5) return { messages: [system, ...messages], tools, allowSystemInMessages: true }
  if (major === 7) return { instructions: system, messages, tools }
  return { system, messages, tools }
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
  version: AiSdkMajor,
): ModelMessage[] {
  const results: ToolResultPart[] = []
  const content: Exclude<UserModelMessage["content"], string> = []
  for (const block of message.content) {
    const part = userPart(block, names, version)
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
  version: AiSdkMajor,
): ToolResultPart | Exclude<UserModelMessage["content"], string>[number] | undefined {
  if (block.type === "text") return { type: "text", text: block.text }
  // ai@7 deprecates the `image` part (AISDK_DEP_IMAGE_CONTENT_PART): an image is a `file` part with its media type.
  if (block.type === "image")
    return version >= 7
      ? { type: "file", data: block.data, mediaType: block.mediaType }
      : { type: "image", image: block.data, mediaType: block.mediaType }
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
    b.type === "text" ? { type: "text" as const, text: b.text } : toolResultImage(b.data, b.mediaType, version),
  )
  if (block.isError) value.unshift({ type: "text", text: "Error:" })
  return { type: "tool-result", toolCallId: block.toolUseId, toolName, output: { type: "content", value } }
}

/** The content item of an image in a tool result, in the shape the AI SDK of major `version` reads without a warning. */
function toolResultImage(data: string, mediaType: string, version: AiSdkMajor): ImageData {
  // ai@5 calls it `media`; ai@6 `image-data`; ai@7 deprecates that (AISDK_DEP_TOOL_RESULT_IMAGE_DATA) for a `file`
  // item whose data is tagged. The adapter is typed against ai@6, so the other shapes are cast to its type.
  if (version === 5) return { type: "media", data, mediaType } as unknown as ImageData
  if (version >= 7) return { type: "file", data: { type: "data", data }, mediaType } as unknown as ImageData
  return { type: "image-data", data, mediaType }
}

/** An image item of a tool result's content, as ai@6 types it. */
type ImageData = { type: "image-data"; data: string; mediaType: string }

function applyCache(
  input: EncodeInput,
  history: readonly Message[],
  system: SystemModelMessage | undefined,
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
