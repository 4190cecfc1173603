/**
 * The cache layout of an encoded request: its units in the provider's caching order (a scheme's order of
 * tools, system sections and message blocks), each with the exact bytes sent, its token count and any
 * breakpoint. Two layouts compared unit by unit give the longest shared prefix (cache-compare.ts).
 */
import { createHash } from "node:crypto"
import type { TokenCounter } from "../history/tokens.js"
import type { ModelInfo, WireFormat } from "../models/types.js"
import { descriptorOf } from "../providers/descriptors.js"
import { formatModule } from "../providers/formats.js"
import { isObject, type WireParts } from "../providers/wire-parts.js"
import type { CacheScheme, RequestPart } from "./schemes.js"
import { splitSections } from "./sections.js"

/** Token counts of units by the hash of their bytes, kept across the requests of a conversation. */
export type TokenMemo = Map<string, number>

/** One unit of the layout. */
export interface LayoutSegment {
  part: RequestPart
  /** JSON path of the unit in the body. */
  path: string
  /** A tool's name, a system section's name, or `message 3 block 1`. */
  label: string
  tool?: string
  section?: string
  /** Index of the message in the body's message list (messages, input or contents). */
  message?: number
  /** Index of the block within its message. */
  block?: number
  role?: string
  kind: string
  /** The exact bytes compared (JSON as sent, without cache markers). */
  bytes: string
  hash: string
  /** The text counted for tokens (what the model reads). */
  text: string
  /** Tokens of the unit, its wire overheads included. */
  tokens: number
  breakpoint?: "5m" | "1h"
}

/** An encoded request in caching order. */
export interface CacheLayout {
  format: WireFormat
  scheme: CacheScheme
  model: ModelInfo
  segments: LayoutSegment[]
  /** Tokens before each segment ends: `ends[i]` = tokens of segments 0..i. */
  ends: number[]
  total: number
  /** Indexes of segments that carry a breakpoint. */
  breakpoints: number[]
  sessionId?: string
  requestedTtl?: string
  /** Hash of each message's bytes, by message index (for finding dropped messages). */
  messageHashes: Map<number, string>
}

const SKIPPED_KEYS = new Set([
  "type",
  "id",
  "tool_use_id",
  "tool_call_id",
  "call_id",
  "signature",
  "thoughtSignature",
  "role",
  "status",
  "encrypted_content",
])
const JSON_KEYS = new Set(["input", "args"])
const IMAGE_KINDS = new Set(["image", "input_image", "image_url", "inlineData", "fileData"])
const TOOL_KINDS = new Set([
  "tool_use",
  "tool_result",
  "tool_call",
  "function_call",
  "function_call_output",
  "functionCall",
  "functionResponse",
])

/** The text of a value as the model reads it: its strings, tool arguments as JSON; ids, types and image data left out. */
export function countedText(value: unknown): string {
  const out: string[] = []
  const walk = (v: unknown) => {
    if (typeof v === "string") out.push(v)
    else if (typeof v === "number" || typeof v === "boolean") out.push(String(v))
    else if (Array.isArray(v)) for (const x of v) walk(x)
    else if (v !== null && typeof v === "object") {
      const o = v as Record<string, unknown>
      if (typeof o.data === "string" && ("media_type" in o || "mimeType" in o)) return
      for (const key of Object.keys(o)) {
        if (SKIPPED_KEYS.has(key)) continue
        if (JSON_KEYS.has(key) && typeof o[key] === "object") out.push(JSON.stringify(o[key]))
        else if (key === "image_url") continue
        else walk(o[key])
      }
    }
  }
  walk(value)
  return out.join("\n")
}

const hashOf = (bytes: string) => createHash("sha1").update(bytes).digest("base64")

/** Lays an encoded body out in its format's caching order (built-in or registered), with exact token counts from `counter`. */
export function cacheLayout(
  format: WireFormat,
  body: unknown,
  model: ModelInfo,
  counter: TokenCounter,
  memo?: TokenMemo,
): CacheLayout {
  const module = formatModule(format)
  const scheme = descriptorOf(format).cache
  const overhead = module.overhead
  const family = model.tokenizer
  // Each format's module takes its own body apart; a body that is not an object has no parts.
  const parts: WireParts = isObject(body) ? module.wireParts(body) : { tools: [], system: [], messages: [] }
  const count = (text: string) => (text ? counter.countText(text, family) : 0)
  const tokensOf = (s: Omit<LayoutSegment, "hash" | "tokens">, hash: string) => {
    const key = `${family}:${hash}`
    const known = memo?.get(key)
    if (known !== undefined) return known
    const n = count(s.text)
    memo?.set(key, n)
    return n
  }
  const byPart: Record<RequestPart, Omit<LayoutSegment, "hash" | "tokens">[]> = {
    tools: toolSegments(parts),
    system: systemSegments(parts),
    messages: messageSegments(parts),
  }
  const segments: LayoutSegment[] = []
  const messageHashes = new Map<number, string>()
  for (const part of scheme.order) {
    byPart[part].forEach((s, i) => {
      const hash = hashOf(s.bytes)
      let tokens = tokensOf(s, hash)
      if (part === "tools") tokens += overhead.tool + (i === 0 ? overhead.toolsPreamble : 0)
      if (part === "messages") {
        if (s.block === 0) tokens += overhead.message
        if (IMAGE_KINDS.has(s.kind)) tokens += overhead.image
        if (TOOL_KINDS.has(s.kind)) tokens += overhead.toolBlock
      }
      segments.push({ ...s, hash, tokens })
    })
  }
  const perMessage = new Map<number, string[]>()
  for (const s of segments) {
    if (s.part !== "messages" || s.message === undefined) continue
    const own = perMessage.get(s.message) ?? []
    own.push(s.hash)
    perMessage.set(s.message, own)
  }
  for (const [m, hashes] of perMessage) messageHashes.set(m, hashOf(hashes.join(",")))
  const ends: number[] = []
  let total = overhead.request
  for (const s of segments) {
    total += s.tokens
    ends.push(total)
  }
  const breakpoints = segments.flatMap((s, i) => (s.breakpoint ? [i] : []))
  return {
    format,
    scheme,
    model,
    segments,
    ends,
    total,
    breakpoints,
    messageHashes,
    ...(parts.sessionId !== undefined ? { sessionId: parts.sessionId } : {}),
    ...(parts.requestedTtl !== undefined ? { requestedTtl: parts.requestedTtl } : {}),
  }
}

/** The last index in a JSON path (`messages[3]` → 3). */
function indexOfPath(path: string): number {
  const match = /\[(\d+)\]$/.exec(path)
  return match ? Number(match[1]) : 0
}

function toolSegments(parts: WireParts): Omit<LayoutSegment, "hash" | "tokens">[] {
  return parts.tools.map((t) => {
    const bytes = JSON.stringify(t.value)
    return {
      part: "tools" as const,
      path: t.path,
      label: `tool ${t.name}`,
      tool: t.name,
      kind: "tool",
      bytes,
      text: bytes,
      ...(t.breakpoint ? { breakpoint: t.breakpoint } : {}),
    }
  })
}

function systemSegments(parts: WireParts): Omit<LayoutSegment, "hash" | "tokens">[] {
  const out: Omit<LayoutSegment, "hash" | "tokens">[] = []
  for (const block of parts.system) {
    const sections = splitSections(block.text)
    sections.forEach((section, i) => {
      const last = i === sections.length - 1
      out.push({
        part: "system",
        path: block.path,
        label: `system section ${section.name}`,
        section: section.name,
        kind: "system",
        bytes: section.text,
        text: section.text,
        ...(last && block.breakpoint ? { breakpoint: block.breakpoint } : {}),
      })
    })
  }
  return out
}

function messageSegments(parts: WireParts): Omit<LayoutSegment, "hash" | "tokens">[] {
  const out: Omit<LayoutSegment, "hash" | "tokens">[] = []
  for (const m of parts.messages) {
    const message = indexOfPath(m.path)
    const head = JSON.stringify(m.head)
    if (m.blocks.length === 0) {
      out.push({
        part: "messages",
        path: m.path,
        label: `message ${message}`,
        message,
        block: 0,
        role: m.role,
        kind: "empty",
        bytes: head,
        text: "",
      })
      continue
    }
    m.blocks.forEach((b, block) => {
      const json = JSON.stringify(b.value)
      out.push({
        part: "messages",
        path: b.path,
        label: `message ${message} block ${block}`,
        message,
        block,
        role: m.role,
        kind: b.kind,
        bytes: block === 0 ? `${head}\n${json}` : json,
        text: countedText(b.value),
        ...(b.breakpoint ? { breakpoint: b.breakpoint } : {}),
      })
    })
  }
  return out
}
