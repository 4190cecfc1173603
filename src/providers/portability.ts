/**
 * Portability: one pass over the history before any encoder, so that a conversation recorded with one
 * model can be sent to another. Thinking and signatures go back only to the model that made them, tool-call
 * ids fit every provider, every call has a result right after it, and images the model cannot read become
 * a note. The input is never modified.
 */
import { type Diagnostic, diagnostic } from "../diagnostics.js"
import {
  type Block,
  type CompactionBlock,
  type ImageBlock,
  type Message,
  type TextBlock,
  type ToolResultBlock,
  type ToolUseBlock,
  textOf,
} from "../history/message.js"
import { madeBy } from "../history/provider-compaction.js"
import { resolveModel } from "../models/resolve.js"
import type { ModelInfo } from "../models/types.js"
import type { ToolCalling } from "../tools/tool-calling.js"
import { lowerToolSearches } from "./tool-search-history.js"
import type { EncodeInput, Origin } from "./types.js"
import { toXmlDialect } from "./xml-dialect.js"

export type { Origin } from "./types.js"

export interface PortOptions {
  /** Default `target`: histories that never recorded the model keep their thinking and signatures. */
  unknownOrigin?: Origin
  /** Volatile facts put at the start of the first user message. */
  contextMessage?: string
  /** The wire format the history is prepared for: a provider's compaction item is kept only for its own format. */
  format?: string
  /**
   * The body carries tool searches and tool references as they are (Anthropic with its tool search); otherwise they
   * are written as calls of promptline's search tool and text (`lowerToolSearches`).
   */
  keepToolSearches?: boolean
}

/** A history ready for an encoder, with what changed and the map from original to sent tool-call ids. */
export interface PortedHistory {
  messages: Message[]
  diagnostics: Diagnostic[]
  /** Original tool-call id → id sent (for its first call), for every id that changed. */
  toolIds: Record<string, string>
}

/** The text of a result the tool never returned. */
export const MISSING_RESULT_TEXT = "No result: the tool call did not complete."

/** Text put where an image was, for a model that does not read images. */
export const IMAGE_OMITTED_TEXT = "[image omitted: this model does not accept images]"

const ID_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/

/**
 * The catalog's id for a model id (`claude-sonnet-4.5` and `claude-sonnet-4-5` → the dated row), or
 * the id itself when the catalog does not know it. A match on a mere prefix (a warning) is no match:
 * a longer id may name a different model.
 */
function canonicalIdOf(id: string): string {
  const resolved = resolveModel(id)
  if (!resolved.known || resolved.diagnostics.some((d) => d.level === "warning")) return id
  return resolved.model.canonicalId ?? resolved.model.id
}

/** True when `model` (as recorded on a block) names the target model, in any of the forms the catalog knows. */
export function isSameModel(
  recorded: string | undefined,
  target: ModelInfo,
  unknownOrigin: Origin = "target",
): boolean {
  if (recorded === undefined) return unknownOrigin === "target"
  if (recorded === target.id || recorded === target.canonicalId || target.aliases?.includes(recorded)) return true
  return canonicalIdOf(recorded) === (target.canonicalId ?? canonicalIdOf(target.id))
}

/** FNV-1a, 32 bits, as 7 base-36 characters: a short, stable suffix for rewritten ids. */
function shortHash(value: string): string {
  let h = 0x811c9dc5
  for (let i = 0; i < value.length; i++) {
    h ^= value.charCodeAt(i)
    h = Math.imul(h, 0x01000193) >>> 0
  }
  return h.toString(36).padStart(7, "0")
}

/** Assigns provider-safe tool-call ids: at most 64 of `[a-zA-Z0-9_-]`, unique across the history. */
class ToolIdMap {
  private readonly used = new Set<string>()
  readonly changed: Record<string, string> = {}

  /** The id to send for a call seen for the first time (distinct calls never share an id). */
  assign(original: string): string {
    let id = original
    if (!ID_PATTERN.test(original) || this.used.has(original)) {
      const clean = original.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 56) || "call"
      id = `${clean}_${shortHash(original)}`
      for (let n = 2; this.used.has(id); n++) id = `${clean}_${shortHash(`${original}#${n}`)}`
      if (!(original in this.changed)) this.changed[original] = id
    }
    this.used.add(id)
    return id
  }
}

/** Makes a history sendable to `model`; see the module comment for the rules. */
export function portHistory(messages: readonly Message[], model: ModelInfo, options: PortOptions = {}): PortedHistory {
  const origin = options.unknownOrigin ?? "target"
  const diagnostics: Diagnostic[] = []
  const counts = new Map<string, number>()
  const count = (code: string) => counts.set(code, (counts.get(code) ?? 0) + 1)
  const ids = new ToolIdMap()

  const searched = options.keepToolSearches ? messages : lowerToolSearches(messages)
  const withContext = insertContextMessage(searched, options.contextMessage)

  // 1. Blocks: thinking, signatures, images and compaction items, message by message.
  const converted: Message[] = []
  let foreign = 0
  for (const message of withContext) {
    const content: Block[] = []
    for (const block of message.content) {
      if (block.type === "compaction" && !isOwnCompaction(block, model, options.format)) {
        foreign++
        continue
      }
      const ported = portBlock(block, model, origin, count)
      const out = ported && message.role === "system" ? systemBlock(ported, count) : ported
      if (out) content.push(out)
    }
    if (content.length > 0) converted.push({ ...message, content })
    else if (message.content.length > 0) count("message-dropped")
  }

  // 2. Calls and results: ids, pairing, order.
  const out: Message[] = []
  for (let i = 0; i < converted.length; i++) {
    const message = converted[i]!
    if (message.role === "assistant") {
      const calls: Call[] = []
      const content = message.content.map((b): Block => {
        if (b.type === "tool_result") {
          diagnostics.push(misplaced(out.length, "a tool result in an assistant message"))
          return resultAsText(b)
        }
        if (b.type !== "tool_use") return b
        const sent = ids.assign(b.id)
        if (sent !== b.id) count("tool-id-rewritten")
        const use = sent === b.id ? b : { ...b, id: sent }
        calls.push({ original: b.id, use })
        return use
      })
      out.push({ ...message, content })
      if (calls.length === 0) continue
      // System messages between the calls and their results move after the results, which must come next.
      const held: Message[] = []
      while (converted[i + 1]?.role === "system") held.push(converted[++i]!)
      const next = converted[i + 1]
      const answered = next?.role === "user" ? next : undefined
      if (answered) i++
      out.push(answerCalls(message, calls, answered, diagnostics, out.length))
      if (held.length > 0 && answered) for (const _ of held) count("system-message-moved")
      out.push(...held)
    } else {
      out.push(orphanResults(message, diagnostics, out.length))
    }
  }

  for (const [code, n] of [...counts].sort(([a], [b]) => a.localeCompare(b))) {
    diagnostics.push(diagnostic("info", code, SUMMARY[code]?.(n) ?? `${code}: ${n}`))
  }
  if (foreign > 0) diagnostics.push(compactionDropped(foreign, model, options.format))
  return { messages: out, diagnostics, toolIds: ids.changed }
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

const SUMMARY: Record<string, (n: number) => string> = {
  "thinking-as-text": (n) => `${plural(n, "thinking block")} from another model sent as plain text`,
  "redacted-thinking-dropped": (n) => `${plural(n, "redacted thinking block")} from another model dropped`,
  "signature-dropped": (n) => `${plural(n, "signature")} made by another model not sent`,
  "tool-id-rewritten": (n) => `${plural(n, "tool-call id")} rewritten to at most 64 of [a-zA-Z0-9_-], unique`,
  "image-omitted": (n) => `${plural(n, "image")} replaced by a note: the model does not accept images`,
  "message-dropped": (n) => `${plural(n, "message")} left empty by the conversion dropped`,
  "thinking-empty-dropped": (n) => `${plural(n, "empty thinking block")} without a signature dropped`,
  "text-blank-dropped": (n) => `${plural(n, "empty or whitespace-only text block")} dropped`,
  "system-message-moved": (n) =>
    `${plural(n, "system message")} between tool calls and their results moved after the results`,
  "system-block-as-text": (n) => `${plural(n, "tool call or result")} in a system message sent as its text`,
  "system-block-dropped": (n) => `${plural(n, "image or thinking block")} in a system message dropped: it holds text`,
}

/**
 * True when a provider's compaction item can go back in this request: the same wire format, and the same provider
 * when the item names one (its payload is opaque and only its maker can read it).
 */
export function isOwnCompaction(block: CompactionBlock, model: ModelInfo, format: string | undefined): boolean {
  return format !== undefined && madeBy(block, { format, provider: model.provider })
}

/** The warning for compaction items left out of a request to another provider or wire format. */
function compactionDropped(n: number, model: ModelInfo, format: string | undefined): Diagnostic {
  return diagnostic(
    "warning",
    "compaction-dropped",
    `${plural(n, "provider compaction item")} made by another provider or wire format dropped (sending ${format ?? "another format"} to ${model.provider}): the turns it condensed are sent as recorded, or as promptline's own summary`,
  )
}

/** A block of a system message, which holds text only: calls and results become their text, the rest goes. */
function systemBlock(block: Block, count: (code: string) => void): Block | undefined {
  if (block.type === "text") return block
  if (block.type === "tool_result") {
    count("system-block-as-text")
    return resultAsText(block)
  }
  if (block.type === "tool_use") {
    count("system-block-as-text")
    return { type: "text", text: `Call of tool ${block.name} (${block.id}): ${JSON.stringify(block.input ?? {})}` }
  }
  count("system-block-dropped")
  return undefined
}

function insertContextMessage(messages: readonly Message[], context: string | undefined): readonly Message[] {
  if (!context) return messages
  const first = messages.findIndex((m) => m.role === "user")
  const block: TextBlock = { type: "text", text: context }
  if (first === -1 || messages.slice(0, first).some((m) => m.content.some((b) => b.type === "tool_use"))) {
    const ts = messages[0]?.ts ?? 0
    return [{ id: "context", role: "user", content: [block], ts }, ...messages]
  }
  const target = messages[first]!
  const copy = [...messages]
  copy[first] = { ...target, content: [block, ...target.content] }
  return copy
}

function portBlock(block: Block, model: ModelInfo, origin: Origin, count: (code: string) => void): Block | undefined {
  switch (block.type) {
    case "thinking": {
      if (isSameModel(block.model, model, origin)) {
        if (block.text.trim() === "" && !block.signature) {
          count("thinking-empty-dropped")
          return undefined
        }
        return block
      }
      if (block.text.trim() === "") {
        if (block.signature) count("signature-dropped")
        return undefined
      }
      count("thinking-as-text")
      return { type: "text", text: block.text }
    }
    case "redacted_thinking":
      if (isSameModel(block.model, model, origin)) return block
      count("redacted-thinking-dropped")
      return undefined
    case "tool_use":
      if (block.signature !== undefined && !isSameModel(block.model, model, origin)) {
        count("signature-dropped")
        const { signature: _s, model: _m, ...rest } = block
        return rest
      }
      return block
    case "text":
      // Whitespace-only text says nothing, and Anthropic refuses it (as every provider's empty text).
      if (block.text.trim() !== "") return block
      count("text-blank-dropped")
      return undefined
    case "image":
      if (model.capabilities.images) return block
      count("image-omitted")
      return { type: "text", text: IMAGE_OMITTED_TEXT }
    case "tool_result": {
      if (model.capabilities.images || typeof block.content === "string") return block
      const content = block.content.map((b): TextBlock | ImageBlock => {
        if (b.type !== "image") return b
        count("image-omitted")
        return { type: "text", text: IMAGE_OMITTED_TEXT }
      })
      return { ...block, content }
    }
    default:
      return block
  }
}

/** A call of an assistant message: the id it was recorded with and the block as sent. */
interface Call {
  original: string
  use: ToolUseBlock
}

/**
 * The user message that answers `assistant`'s calls: results first, in call order, a synthetic result for
 * every call left unanswered, and results for unknown calls turned into text.
 */
function answerCalls(
  assistant: Message,
  calls: Call[],
  next: Message | undefined,
  diagnostics: Diagnostic[],
  index: number,
): Message {
  const answers: (ToolResultBlock | undefined)[] = calls.map(() => undefined)
  const rest: Block[] = []
  for (const block of next?.content ?? []) {
    if (block.type !== "tool_result") {
      rest.push(block.type === "tool_use" ? callAsText(block, diagnostics, index) : block)
      continue
    }
    // A result answers the first call with its id that has no answer yet.
    const k = calls.findIndex((c, j) => c.original === block.toolUseId && answers[j] === undefined)
    if (k === -1) {
      const known = calls.some((c) => c.original === block.toolUseId)
      diagnostics.push(
        diagnostic(
          "warning",
          known ? "tool-result-duplicate" : "tool-result-orphaned",
          `messages[${index}]: a result for ${known ? "an already answered" : "an unknown"} tool call "${block.toolUseId}" was sent as text`,
        ),
      )
      rest.push(
        resultAsText(block),
        ...(typeof block.content === "string" ? [] : block.content.filter((c) => c.type === "image")),
      )
      continue
    }
    const sent = calls[k]!.use.id
    answers[k] = sent === block.toolUseId ? block : { ...block, toolUseId: sent }
  }
  const ordered: Block[] = calls.map(({ use }, k) => {
    const found = answers[k]
    if (found) return found
    diagnostics.push(
      diagnostic(
        "warning",
        "tool-result-missing",
        `messages[${index}]: tool call "${use.name}" (${use.id}) had no result; a "no result" error was inserted`,
      ),
    )
    return { type: "tool_result", toolUseId: use.id, content: MISSING_RESULT_TEXT, isError: true }
  })
  const base = next ?? { id: `${assistant.id}-results`, role: "user" as const, content: [], ts: assistant.ts }
  return { ...base, content: [...ordered, ...rest] }
}

function misplaced(index: number, what: string): Diagnostic {
  return diagnostic("warning", "block-misplaced", `messages[${index}]: ${what} was sent as text`)
}

/** A tool call found in a user message (which cannot carry one) as text. */
function callAsText(block: ToolUseBlock, diagnostics: Diagnostic[], index: number): TextBlock {
  diagnostics.push(misplaced(index, "a tool call in a user message"))
  return { type: "text", text: `Call of tool ${block.name} (${block.id}): ${JSON.stringify(block.input ?? {})}` }
}

/** A user message that does not follow calls keeps no tool_result blocks: they become text (images stay images). */
function orphanResults(message: Message, diagnostics: Diagnostic[], index: number): Message {
  if (!message.content.some((b) => b.type === "tool_result" || b.type === "tool_use")) return message
  const content = message.content.flatMap((b): Block[] => {
    if (b.type === "tool_use") return [callAsText(b, diagnostics, index)]
    if (b.type !== "tool_result") return [b]
    diagnostics.push(
      diagnostic(
        "warning",
        "tool-result-orphaned",
        `messages[${index}]: a result for tool call "${b.toolUseId}" follows no call and was sent as text`,
      ),
    )
    const images = typeof b.content === "string" ? [] : b.content.filter((c) => c.type === "image")
    return [resultAsText(b), ...images]
  })
  return { ...message, content }
}

function resultAsText(block: ToolResultBlock): TextBlock {
  const body = textOf(block, { separator: "\n", image: "[image]" })
  return { type: "text", text: `Result of tool call ${block.toolUseId}${block.isError ? " (error)" : ""}:\n${body}` }
}

/**
 * The shared first step of every encoder: context message, portability, and the XML dialect when asked. `format`
 * is the encoder's own wire format (compaction items of that format are kept).
 */
export function prepareHistory(
  input: EncodeInput,
  format?: string,
  keepToolSearches = false,
): PortedHistory & { toolCalling: ToolCalling } {
  const toolCalling = input.prompt.toolCalling ?? "native"
  const ported = portHistory(input.messages, input.model, {
    contextMessage: input.prompt.contextMessage,
    unknownOrigin: input.options?.unknownOrigin,
    ...(format ? { format } : {}),
    ...(keepToolSearches ? { keepToolSearches } : {}),
  })
  if (toolCalling === "xml") ported.messages = toXmlDialect(ported.messages)
  return { ...ported, toolCalling }
}
