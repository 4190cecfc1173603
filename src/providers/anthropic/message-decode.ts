/**
 * The `messages` of an Anthropic Messages request read back as internal messages: content blocks, tool calls
 * and results with their ids, thinking with its signature, redacted thinking, images, mid-conversation system
 * messages. Blocks promptline has no place for are listed as JSON paths; a block without a field the API
 * requires is an `invalid-request` error naming its path.
 */
import type { Block, ImageBlock, Message, Role, TextBlock, ToolSearchBlock } from "../../history/message.js"
import type { CacheTtl } from "../cache.js"
import { ProviderError } from "../errors.js"
import { obj, str } from "../stream.js"
import { compactionFromWire } from "./context-edits.js"
import { ANTHROPIC_MESSAGE_ROLES } from "./request-shape.js"
import { isToolSearchName, toolSearchResultFromWire } from "./tool-search-blocks.js"

/** A `cache_control` breakpoint found in the request, in prefix order. */
export interface FoundBreakpoint {
  target: "tools" | "system" | "message"
  /** Index of the message that carries it (for `message`). */
  messageIndex?: number
  ttl: CacheTtl
}

/** What reading one part of a request collects besides its content. */
export interface DecodeState {
  unmodeled: string[]
  breakpoints: FoundBreakpoint[]
}

/** The keys each modeled block type may carry; any other key is listed as unmodeled. */
const BLOCK_KEYS: Record<string, ReadonlySet<string>> = {
  text: new Set(["type", "text", "cache_control", "citations"]),
  image: new Set(["type", "source", "cache_control"]),
  tool_use: new Set(["type", "id", "name", "input", "cache_control"]),
  tool_result: new Set(["type", "tool_use_id", "content", "is_error", "cache_control"]),
  thinking: new Set(["type", "thinking", "signature"]),
  redacted_thinking: new Set(["type", "data"]),
  // Its opaque fields travel in the block's payload.
  compaction: new Set(["type", "content", "encrypted_content", "signature", "tool_changes", "cache_control"]),
}

/** A ProviderError for a malformed request. */
export function invalid(message: string): ProviderError {
  return new ProviderError("invalid-request", message, { status: 400 })
}

/** The lifetime of a `cache_control` marker, or undefined when the value is not one. */
export function ttlOf(control: unknown): CacheTtl | undefined {
  const c = obj(control)
  if (c?.type !== "ephemeral") return undefined
  return c.ttl === "1h" ? "1h" : "5m"
}

/** Reads `messages`; message ids are `m1`, `m2`, … and `ts` is 0. */
export function decodeMessages(value: unknown, state: DecodeState): Message[] {
  if (!Array.isArray(value)) throw invalid("messages: must be a list of messages")
  return value.map((entry, i) => {
    const at = `messages[${i}]`
    const message = obj(entry)
    if (!message) throw invalid(`${at}: a message must be an object`)
    const role = message.role
    if (typeof role !== "string" || !Object.hasOwn(ANTHROPIC_MESSAGE_ROLES, role))
      throw invalid(`${at}.role: must be "user", "assistant" or "system"`)
    const internal: Role = ANTHROPIC_MESSAGE_ROLES[role as keyof typeof ANTHROPIC_MESSAGE_ROLES]
    for (const key of Object.keys(message))
      if (key !== "role" && key !== "content") state.unmodeled.push(`${at}.${key}`)
    const content = decodeContent(message.content, `${at}.content`, internal, i, state)
    return { id: `m${i + 1}`, role: internal, content, ts: 0 }
  })
}

function decodeContent(value: unknown, at: string, role: Role, index: number, state: DecodeState): Block[] {
  if (typeof value === "string") return [{ type: "text", text: value }]
  if (!Array.isArray(value)) throw invalid(`${at}: must be a string or a list of content blocks`)
  const blocks: Block[] = []
  const searches = role === "assistant" ? toolSearches(value) : new Map<number, ToolSearchBlock | null>()
  value.forEach((entry, j) => {
    const path = `${at}[${j}]`
    const block = obj(entry)
    if (!block || typeof block.type !== "string")
      throw invalid(`${path}: a content block must be an object with a type`)
    if (role === "system" && block.type !== "text") throw invalid(`${path}: a system message holds text blocks only`)
    const search = searches.get(j)
    if (search === null) return
    const decoded = search ?? decodeBlock(block, path, state)
    if (decoded === undefined) return
    const ttl = ttlOf(block.cache_control)
    if (ttl) state.breakpoints.push({ target: "message", messageIndex: index, ttl })
    blocks.push(decoded)
  })
  return blocks
}

/**
 * The tool searches of an assistant message's content: each `server_tool_use` of a tool search with its
 * `tool_search_tool_result` becomes one block at the call's index (the result's index maps to null: read with
 * it). A call without its result, or a result that is not a tool search's, is left to be listed as unmodeled.
 */
function toolSearches(content: readonly unknown[]): Map<number, ToolSearchBlock | null> {
  const out = new Map<number, ToolSearchBlock | null>()
  const results = new Map<string, number>()
  content.forEach((entry, j) => {
    const block = obj(entry)
    const id = str(block?.tool_use_id)
    if (block?.type === "tool_search_tool_result" && id !== undefined) results.set(id, j)
  })
  content.forEach((entry, j) => {
    const block = obj(entry)
    const id = str(block?.id)
    if (block?.type !== "server_tool_use" || !isToolSearchName(block.name) || id === undefined) return
    const at = results.get(id)
    const result = at === undefined ? undefined : toolSearchResultFromWire(obj(content[at])?.content)
    if (at === undefined || result === undefined) return
    out.set(j, { type: "tool_search", id, name: block.name, input: block.input ?? {}, ...result })
    out.set(at, null)
  })
  return out
}

/** One content block of a user, assistant or system message; undefined (and listed) when promptline has no place for it. */
function decodeBlock(block: Record<string, unknown>, at: string, state: DecodeState): Block | undefined {
  const type = block.type as string
  const known = BLOCK_KEYS[type]
  if (!known) {
    // Documents, search results, server tool calls and results, MCP blocks, container uploads, unknown types.
    state.unmodeled.push(at)
    return undefined
  }
  const decoded = decodeKnownBlock(type, block, at, state)
  if (decoded === undefined) return undefined
  // Citations are dropped with the text kept; an empty citations field loses nothing.
  for (const key of Object.keys(block))
    if (key === "citations" ? block.citations != null : !known.has(key)) state.unmodeled.push(`${at}.${key}`)
  return decoded
}

function decodeKnownBlock(
  type: string,
  block: Record<string, unknown>,
  at: string,
  state: DecodeState,
): Block | undefined {
  switch (type) {
    case "text":
      return textBlock(block, at)
    case "image":
      return imageBlock(block, at, state)
    case "tool_use": {
      const id = required(block, "id", at)
      const name = required(block, "name", at)
      return { type: "tool_use", id, name, input: block.input ?? {} }
    }
    case "tool_result":
      return toolResult(block, at, state)
    case "thinking": {
      const text = required(block, "thinking", at)
      const signature = str(block.signature)
      return signature === undefined ? { type: "thinking", text } : { type: "thinking", text, signature }
    }
    case "redacted_thinking":
      return { type: "redacted_thinking", data: required(block, "data", at) }
    case "compaction":
      return compactionFromWire(block)
  }
  return undefined
}

function textBlock(block: Record<string, unknown>, at: string): TextBlock {
  return { type: "text", text: required(block, "text", at) }
}

/** A base64 image; an image by URL or file id has no place in the internal format and is listed. */
function imageBlock(block: Record<string, unknown>, at: string, state: DecodeState): ImageBlock | undefined {
  const source = obj(block.source)
  if (!source) throw invalid(`${at}.source: an image source is required`)
  if (source.type !== "base64") {
    state.unmodeled.push(at)
    return undefined
  }
  return {
    type: "image",
    mediaType: required(source, "media_type", `${at}.source`),
    data: required(source, "data", `${at}.source`),
  }
}

function toolResult(block: Record<string, unknown>, at: string, state: DecodeState): Block {
  const toolUseId = required(block, "tool_use_id", at)
  const out: Extract<Block, { type: "tool_result" }> = { type: "tool_result", toolUseId, content: "" }
  const content = block.content
  if (typeof content === "string") out.content = content
  else if (Array.isArray(content)) {
    const parts: (TextBlock | ImageBlock)[] = []
    const references: string[] = []
    content.forEach((entry, k) => {
      const path = `${at}.content[${k}]`
      const part = obj(entry)
      if (!part || typeof part.type !== "string")
        throw invalid(`${path}: a content block must be an object with a type`)
      if (part.type === "text") parts.push(textBlock(part, path))
      else if (part.type === "image") {
        const image = imageBlock(part, path, state)
        if (image) parts.push(image)
      } else if (part.type === "tool_reference") references.push(required(part, "tool_name", path))
      else state.unmodeled.push(path)
    })
    out.content = parts
    if (references.length > 0) out.references = references
  } else if (content !== undefined && content !== null)
    throw invalid(`${at}.content: must be a string or a list of content blocks`)
  if (block.is_error === true) out.isError = true
  return out
}

/** A string field the API requires. */
function required(record: Record<string, unknown>, key: string, at: string): string {
  const value = record[key]
  if (typeof value !== "string") throw invalid(`${at}.${key}: a string is required`)
  return value
}
