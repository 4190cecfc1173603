/**
 * Gemini generateContent request bodies: `systemInstruction`, `contents` with user/model roles,
 * functionCall/functionResponse parts, and thought signatures kept on the part they came with. Gemini 3
 * refuses a replayed function call without a signature, so one that lost it gets Google's documented
 * placeholder. The model and the streaming choice go in the URL, not the body.
 */
import { type Diagnostic, diagnostic } from "../../diagnostics.js"
import type { Message } from "../../history/message.js"
import { textOf } from "../../history/message.js"
import { type Fitted, fitBudget, fitEffort, fitThinkingOff } from "../../models/thinking.js"
import type { ModelInfo } from "../../models/types.js"
import { choiceOffered, deferralUncarried, unmanagedUncarried, withUncarried } from "../carried.js"
import { prepareHistory } from "../portability.js"
import { systemReminder, systemText } from "../system-message.js"
import { repairTurns } from "../turns.js"
import type { EncodeInput, EncodeResult, ReasoningEffort, RequestPart, ThinkingOptions } from "../types.js"
import { toGeminiTools } from "./tools.js"
import type {
  Content,
  FunctionCallingConfigMode,
  GeminiRequest,
  GenerationConfig,
  Part,
  ThinkingConfig,
  ThinkingLevel,
  ToolConfig,
} from "./wire-types.js"

export type { GeminiRequest } from "./wire-types.js"

/**
 * The value Google documents for a function call whose real thought signature is unknown (a history made
 * by another model, or one that lost it); Gemini 3 then skips signature validation for that call.
 */
export const PLACEHOLDER_THOUGHT_SIGNATURE = "skip_thought_signature_validator"

/** The major version in a Gemini model id (`gemini-2.5-pro` → 2), or 0 when there is none. */
export function geminiGeneration(model: Pick<ModelInfo, "id">): number {
  const m = /gemini-(\d+)/.exec(model.id)
  return m ? Number(m[1]) : 0
}

/** Encodes a request for the Gemini generateContent API. */
export function encodeGemini(input: EncodeInput): EncodeResult<GeminiRequest> {
  const options = input.options ?? {}
  const prepared = prepareHistory(input)
  const diagnostics: Diagnostic[] = [...prepared.diagnostics]
  const native = prepared.toolCalling === "native" && input.prompt.tools.length > 0
  const gen3 = geminiGeneration(input.model) >= 3

  const names = new Map<string, string>()
  const encoded: Content[] = []
  let placeholders = 0
  let inlined = 0
  for (const message of prepared.messages) {
    if (message.role === "system") {
      // Gemini has no system turn: the text goes into a user turn, tagged, and joins the user turn beside it.
      encoded.push({ role: "user", parts: [{ text: systemReminder(systemText(message)) }] })
      inlined++
      continue
    }
    const parts = message.role === "user" ? userParts(message, names) : modelParts(message, names)
    if (parts.length === 0) continue
    if (gen3 && message.role === "assistant") placeholders += addPlaceholder(parts)
    encoded.push({ role: message.role === "user" ? "user" : "model", parts })
  }
  if (inlined > 0)
    diagnostics.push(
      diagnostic(
        "info",
        "system-message-inlined",
        `${inlined} system message${inlined === 1 ? "" : "s"} sent as <system-reminder> text in a user turn: Gemini has no system turn`,
      ),
    )
  // Turns alternate and the first is the user's; a function call turn then always follows a user turn.
  const turns = repairTurns(encoded, {
    roleOf: (c) => (c.role === "model" ? "assistant" : "user"),
    userTurn: (text): Content => ({ role: "user", parts: [{ text }] }),
    merge: (a, b) => ({ role: a.role, parts: [...(a.parts ?? []), ...(b.parts ?? [])] }),
    userFirst: true,
  })
  const contents = turns.messages
  diagnostics.push(...turns.diagnostics)
  if (placeholders > 0)
    diagnostics.push(
      diagnostic(
        "info",
        "thought-signature-placeholder",
        `${placeholders} function call turn${placeholders === 1 ? "" : "s"} without a thought signature got "${PLACEHOLDER_THOUGHT_SIGNATURE}"`,
      ),
    )

  const body: GeminiRequest = { contents }
  if (input.prompt.text) body.systemInstruction = { parts: [{ text: input.prompt.text }] }
  // Deferred tools, provider-side context management and a stored response have no Gemini form.
  const uncarried: RequestPart[] = [...deferralUncarried(input), ...unmanagedUncarried(options)]
  const tools = native ? input.prompt.tools : []
  if (native) body.tools = toGeminiTools(tools)
  if (options.toolChoice !== undefined && !choiceOffered(options.toolChoice, tools)) uncarried.push("toolChoice")
  else if (native) {
    const config = toolConfig(input)
    if (config) body.toolConfig = config
  }
  // Gemini may always call several functions at once (unless it may call none).
  if (options.parallelToolCalls === false && native && options.toolChoice !== "none")
    uncarried.push("parallelToolCalls")
  const generationConfig: GenerationConfig = { maxOutputTokens: options.maxTokens ?? input.model.maxOutput }
  if (options.temperature !== undefined) generationConfig.temperature = options.temperature
  const thinking = thinkingConfig(input, gen3, diagnostics)
  if (thinking.config) generationConfig.thinkingConfig = thinking.config
  if (!thinking.carried) uncarried.push("thinking")
  const format = options.responseFormat
  if (format) {
    generationConfig.responseMimeType = "application/json"
    if (format.type === "json-schema") generationConfig.responseJsonSchema = format.schema
  }
  body.generationConfig = generationConfig
  return { body, diagnostics, breakpoints: [], ...withUncarried(uncarried) }
}

function userParts(message: Message, names: Map<string, string>): Part[] {
  const parts: Part[] = []
  const trailing: Part[] = []
  for (const block of message.content) {
    if (block.type === "text") {
      if (block.text !== "") parts.push({ text: block.text })
    } else if (block.type === "image") parts.push({ inlineData: { mimeType: block.mediaType, data: block.data } })
    else if (block.type === "tool_result") {
      const text = textOf(block)
      const name = names.get(block.toolUseId) ?? "unknown"
      parts.push({ functionResponse: { name, response: block.isError ? { error: text } : { output: text } } })
      // Images a tool returned follow the responses of the turn as inline data.
      if (typeof block.content !== "string")
        for (const b of block.content)
          if (b.type === "image") trailing.push({ inlineData: { mimeType: b.mediaType, data: b.data } })
    }
  }
  return [...parts, ...trailing]
}

function modelParts(message: Message, names: Map<string, string>): Part[] {
  const parts: Part[] = []
  // A signature that arrived on its own (an empty thinking block) belongs to the part that follows it.
  let pending: string | undefined
  const take = (part: Part): Part => {
    if (pending !== undefined && part.thoughtSignature === undefined) part.thoughtSignature = pending
    pending = undefined
    return part
  }
  for (const block of message.content) {
    if (block.type === "text") {
      if (block.text !== "") parts.push(take({ text: block.text }))
    } else if (block.type === "image") {
      // Model turns take inline data too (models that draw answer with it).
      parts.push(take({ inlineData: { mimeType: block.mediaType, data: block.data } }))
    } else if (block.type === "thinking") {
      if (block.text === "") pending = block.signature ?? pending
      else if (block.signature) parts.push(take({ text: block.text, thought: true, thoughtSignature: block.signature }))
    } else if (block.type === "tool_use") {
      names.set(block.id, block.name)
      const isObject = block.input !== null && typeof block.input === "object" && !Array.isArray(block.input)
      const part: Part = {
        functionCall: { name: block.name, args: isObject ? (block.input as Record<string, unknown>) : {} },
      }
      if (block.signature) part.thoughtSignature = block.signature
      parts.push(take(part))
    }
  }
  const last = parts[parts.length - 1]
  if (pending !== undefined && last && last.thoughtSignature === undefined) last.thoughtSignature = pending
  return parts
}

/** Gemini 3: a turn with function calls but no signature on any of them gets the placeholder on the first. */
function addPlaceholder(parts: Part[]): number {
  const calls = parts.filter((p) => p.functionCall)
  if (calls.length === 0 || calls.some((p) => p.thoughtSignature !== undefined)) return 0
  calls[0]!.thoughtSignature = PLACEHOLDER_THOUGHT_SIGNATURE
  return 1
}

function toolConfig(input: EncodeInput): ToolConfig | undefined {
  const choice = input.options?.toolChoice
  if (choice === undefined) return undefined
  const mode = (m: string) => m as FunctionCallingConfigMode
  if (choice === "auto") return { functionCallingConfig: { mode: mode("AUTO") } }
  if (choice === "none") return { functionCallingConfig: { mode: mode("NONE") } }
  if (choice === "required") return { functionCallingConfig: { mode: mode("ANY") } }
  return { functionCallingConfig: { mode: mode("ANY"), allowedFunctionNames: [choice.name] } }
}

const LEVELS: Record<ReasoningEffort, string> = {
  minimal: "MINIMAL",
  low: "LOW",
  medium: "MEDIUM",
  high: "HIGH",
  xhigh: "HIGH",
  max: "HIGH",
}

const BUDGETS: Record<ReasoningEffort, number> = {
  minimal: 512,
  low: 2048,
  medium: 8192,
  high: 24_576,
  xhigh: 32_768,
  max: 32_768,
}

/** The thinking config for the request, and whether it carries what was asked for. */
function thinkingConfig(
  input: EncodeInput,
  gen3: boolean,
  diagnostics: Diagnostic[],
): { config?: ThinkingConfig; carried: boolean } {
  const requested: ThinkingOptions | false | undefined = input.options?.thinking
  if (requested === undefined) return { carried: true }
  const model = input.model
  if (!model.capabilities.thinking) {
    diagnostics.push(diagnostic("info", "thinking-not-sent", `${model.id} does not think; not requested`))
    // Thinking off is what a model that does not think does anyway.
    return { carried: requested === false }
  }
  // The catalog's rules say how this model is steered; without them, Gemini 3 takes levels and older models budgets.
  const byLevel = model.thinking ? model.thinking.control === "level" : gen3
  const fitted = <T>(f: Fitted<T>): T => {
    if (f.diagnostic) diagnostics.push(f.diagnostic)
    return f.value
  }
  if (requested === false) {
    if (model.thinking) {
      const off = fitThinkingOff(model)
      if (off.off) return { config: { thinkingBudget: 0 }, carried: true }
      diagnostics.push(off.diagnostic)
      if (off.budget !== undefined) return { config: { thinkingBudget: off.budget }, carried: false }
      return { config: { thinkingLevel: LEVELS[off.effort ?? "low"] as ThinkingLevel }, carried: false }
    }
    if (!gen3) return { config: { thinkingBudget: 0 }, carried: true }
    diagnostics.push(
      diagnostic("info", "thinking-minimal", "Gemini 3 cannot turn thinking off; the lowest level is requested"),
    )
    return { config: { thinkingLevel: "LOW" as ThinkingLevel }, carried: false }
  }
  if (requested.budgetTokens !== undefined)
    return {
      config: { includeThoughts: true, thinkingBudget: fitted(fitBudget(model, requested.budgetTokens)) },
      carried: true,
    }
  // Adaptive thinking (neither effort nor budget): the model decides, as Gemini's dynamic thinking does (a budget of
  // -1 where budgets steer it; a level model thinks dynamically unless given a level).
  if (requested.effort === undefined)
    return {
      config: byLevel ? { includeThoughts: true } : { includeThoughts: true, thinkingBudget: -1 },
      carried: true,
    }
  const effort = requested.effort
  const config = byLevel
    ? { includeThoughts: true, thinkingLevel: LEVELS[fitted(fitEffort(model, effort))] as ThinkingLevel }
    : { includeThoughts: true, thinkingBudget: fitted(fitBudget(model, BUDGETS[effort])) }
  return { config, carried: true }
}
