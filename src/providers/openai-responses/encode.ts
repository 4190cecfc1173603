/**
 * OpenAI Responses API request bodies: the system prompt as `instructions`, the history as input items
 * (messages, function calls and their outputs, reasoning items with their encrypted content), stateless by
 * default (`store: false`) so that reasoning travels with the request.
 */
import { type Diagnostic, diagnostic } from "../../diagnostics.js"
import type { ImageBlock, Message, TextBlock } from "../../history/message.js"
import { choiceOffered, deferralUncarried, withUncarried } from "../carried.js"
import { applyPromptCache, assistantImagesDropped, effortFor } from "../openai-chat/encode.js"
import { toResponsesTextFormat } from "../openai-chat/response-format.js"
import { prepareHistory } from "../portability.js"
import { systemText } from "../system-message.js"
import { repairTurns } from "../turns.js"
import type { EncodeInput, EncodeOptions, EncodeResult, RequestPart } from "../types.js"
import { compactionItem, responsesContextManagement } from "./compaction.js"
import { toOpenAIResponsesTools } from "./tools.js"
import type {
  OpenAIResponsesRequest,
  ResponseFunctionCallOutputItemList,
  ResponseInputContent,
  ResponseInputImage,
  ResponseInputItem,
  ToolChoiceFunction,
  ToolChoiceOptions,
} from "./wire-types.js"

export type { OpenAIResponsesRequest } from "./wire-types.js"

/** Encodes a request for the OpenAI Responses API. */
export function encodeOpenAIResponses(input: EncodeInput): EncodeResult<OpenAIResponsesRequest> {
  const options = input.options ?? {}
  const prepared = prepareHistory(input, "openai-responses")
  const diagnostics: Diagnostic[] = [...prepared.diagnostics]
  const native = prepared.toolCalling === "native" && input.prompt.tools.length > 0
  const store = options.store ?? false

  const encoded: ResponseInputItem[] = []
  let dropped = 0
  let images = 0
  for (const message of prepared.messages) {
    if (message.role === "user") encoded.push(...encodeUser(message))
    else if (message.role === "system") {
      // A system message mid-conversation is a developer message item where it stands.
      encoded.push({ type: "message", role: "developer", content: [{ type: "input_text", text: systemText(message) }] })
    } else {
      dropped += encodeAssistant(message, encoded)
      images += message.content.filter((b) => b.type === "image").length
    }
  }
  if (dropped > 0)
    diagnostics.push(
      diagnostic(
        "info",
        "reasoning-not-sent",
        `${dropped} thinking block${dropped === 1 ? "" : "s"} without a reasoning item id and encrypted content not sent`,
      ),
    )
  if (images > 0) diagnostics.push(assistantImagesDropped(images))
  const unpaired = dropUnpairedReasoning(encoded)
  if (unpaired > 0)
    diagnostics.push(
      diagnostic(
        "info",
        "reasoning-without-output",
        `${unpaired} reasoning item${unpaired === 1 ? "" : "s"} not sent: no message or function call of the same turn follows`,
      ),
    )
  // Any order of items is accepted; only an empty input is not.
  const turns = repairTurns(encoded, {
    roleOf: (item) => {
      if ("role" in item && item.role !== "assistant") return item.role === "user" ? "user" : "other"
      return item.type === "function_call_output" ? "other" : "assistant"
    },
    userTurn: (text): ResponseInputItem => ({ type: "message", role: "user", content: [{ type: "input_text", text }] }),
    userFirst: false,
  })
  const items = turns.messages
  diagnostics.push(...turns.diagnostics)

  const body: OpenAIResponsesRequest = { model: input.model.id }
  if (input.prompt.text) body.instructions = input.prompt.text
  body.input = items
  // Deferred tools wait for a tool search this encoder does not write yet.
  const uncarried: RequestPart[] = deferralUncarried(input)
  const tools = native ? input.prompt.tools : []
  if (native) {
    body.tools = toOpenAIResponsesTools(tools)
    if (options.parallelToolCalls !== undefined) body.parallel_tool_calls = options.parallelToolCalls
  }
  if (options.toolChoice !== undefined && !choiceOffered(options.toolChoice, tools)) uncarried.push("toolChoice")
  else if (native) {
    const choice = responsesToolChoice(options)
    if (choice) body.tool_choice = choice
  }
  body.max_output_tokens = options.maxTokens ?? input.model.maxOutput
  const thinks = input.model.capabilities.thinking
  if (options.temperature !== undefined) {
    if (thinks) {
      diagnostics.push(
        diagnostic(
          "warning",
          "temperature-unsupported",
          `${input.model.id} is a reasoning model; temperature not sent`,
        ),
      )
      uncarried.push("temperature")
    } else body.temperature = options.temperature
  }
  if (thinks && options.thinking !== undefined) {
    const effort = effortFor(input.model, options.thinking, diagnostics)
    body.reasoning = effort === "none" ? { effort } : { effort, summary: "auto" }
    if (options.thinking === false && effort !== "none") uncarried.push("thinking")
  } else if (options.thinking !== undefined && options.thinking !== false) {
    diagnostics.push(diagnostic("info", "thinking-not-sent", `${input.model.id} does not think; not requested`))
    uncarried.push("thinking")
  }
  if (thinks && !store) body.include = ["reasoning.encrypted_content"]
  body.store = store
  if (options.responseFormat) body.text = { format: toResponsesTextFormat(options.responseFormat) }
  if (options.contextManagement) {
    const managed = responsesContextManagement(options.contextManagement, diagnostics)
    if (managed) body.context_management = managed
    const { clearToolUses, clearThinking, compaction } = options.contextManagement
    if (clearToolUses !== undefined) uncarried.push("contextManagement.clearToolUses")
    if (clearThinking !== undefined) uncarried.push("contextManagement.clearThinking")
    // Compaction goes, but Anthropic's own settings of it (instructions, pausing) cannot.
    if (typeof compaction === "object" && (compaction.instructions ?? compaction.pauseAfterCompaction) !== undefined)
      uncarried.push("contextManagement.compaction")
  }
  body.stream = options.stream ?? true
  applyPromptCache(body, options, { promptCache: true })
  return { body, diagnostics, breakpoints: [], ...withUncarried(uncarried) }
}

function encodeUser(message: Message): ResponseInputItem[] {
  const items: ResponseInputItem[] = []
  const content: ResponseInputContent[] = []
  for (const block of message.content) {
    if (block.type === "tool_result") {
      let output: string | ResponseFunctionCallOutputItemList
      if (typeof block.content === "string") output = block.isError ? `Error: ${block.content}` : block.content
      else {
        output = block.content.map((b) => (b.type === "text" ? { type: "input_text", text: b.text } : imagePart(b)))
        if (block.isError) output.unshift({ type: "input_text", text: "Error:" })
      }
      items.push({ type: "function_call_output", call_id: block.toolUseId, output })
    } else if (block.type === "text") {
      if (block.text !== "") content.push({ type: "input_text", text: block.text })
    } else if (block.type === "image") content.push(imagePart(block))
    else if (block.type === "compaction") items.push(compactionItem(block))
  }
  if (content.length > 0) items.push({ type: "message", role: "user", content })
  return items
}

/** Appends an assistant message's items; returns how many thinking blocks could not be sent. */
function encodeAssistant(message: Message, items: ResponseInputItem[]): number {
  let dropped = 0
  let texts: string[] = []
  const flush = () => {
    const text = texts.filter((t) => t !== "").join("\n\n")
    if (text !== "") items.push({ type: "message", role: "assistant", content: text })
    texts = []
  }
  for (const block of message.content) {
    if (block.type === "text") texts.push((block as TextBlock).text)
    else if (block.type === "tool_use") {
      flush()
      items.push({
        type: "function_call",
        call_id: block.id,
        name: block.name,
        arguments: JSON.stringify(block.input ?? {}),
      })
    } else if (block.type === "compaction") {
      flush()
      items.push(compactionItem(block))
    } else if (block.type === "thinking") {
      flush()
      if (block.id && block.signature)
        items.push({
          type: "reasoning",
          id: block.id,
          summary: block.text ? [{ type: "summary_text", text: block.text }] : [],
          encrypted_content: block.signature,
        })
      else dropped++
    }
  }
  flush()
  return dropped
}

/**
 * Removes reasoning items that no output item of their turn follows (a turn whose text was blank, or that
 * ended in thinking): the API refuses a reasoning item without its following message or function call.
 * Returns how many were removed.
 */
function dropUnpairedReasoning(items: ResponseInputItem[]): number {
  let removed = 0
  let followed = false
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i]!
    if (item.type === "reasoning") {
      if (!followed) {
        items.splice(i, 1)
        removed++
      }
    } else followed = item.type === "function_call" || (item.type === "message" && item.role === "assistant")
  }
  return removed
}

function imagePart(block: ImageBlock): ResponseInputImage {
  return { type: "input_image", image_url: `data:${block.mediaType};base64,${block.data}`, detail: "auto" }
}

function responsesToolChoice(options: EncodeOptions): ToolChoiceOptions | ToolChoiceFunction | undefined {
  const choice = options.toolChoice
  if (choice === undefined || typeof choice === "string") return choice
  return { type: "function", name: choice.name }
}
