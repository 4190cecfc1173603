/**
 * Reading an encoded request body into its caching units, one reader per wire shape (a format's `speaks`):
 * the tool definitions, the system prompt, and each message's blocks, with where `cache_control` breakpoints
 * sit. The readers only take the body apart; cache-layout.ts orders, measures and compares the pieces.
 */
import type { SpokenFormat } from "../providers/formats.js"

/** One unit of a request as the provider caches it: a tool definition, a system block, or a message block. */
export interface WireUnit {
  /** JSON path of the unit in the body (`tools[2]`, `system[0]`, `messages[3].content[1]`). */
  path: string
  /** The value as sent (with any `cache_control` left out: moving a breakpoint does not change the prefix). */
  value: unknown
  /** An Anthropic breakpoint on this unit, with its lifetime. */
  breakpoint?: "5m" | "1h"
}

/** A tool definition and its name. */
export interface WireTool extends WireUnit {
  name: string
}

/** One message (or input item) of the conversation: its other fields and its blocks. */
export interface WireMessage {
  path: string
  role: string
  /** The fields besides the blocks (role, name, ids), compared with the first block. */
  head: unknown
  blocks: (WireUnit & { kind: string })[]
}

/** An encoded body taken apart in the shape's own order of parts. */
export interface WireParts {
  tools: WireTool[]
  /** System prompt blocks (Anthropic `system`, OpenAI's leading system or developer messages, Gemini `systemInstruction`). */
  system: (WireUnit & { text: string })[]
  messages: WireMessage[]
  /** A session id the body itself carries (`prompt_cache_key`, Anthropic `metadata.user_id`). */
  sessionId?: string
  /** A cache lifetime the body asks for (`prompt_cache_retention`, the longest `cache_control` ttl). */
  requestedTtl?: string
}

type Json = Record<string, unknown>

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v)
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : [])

/** The lifetime a `cache_control` value asks for; none for a missing or null marker. */
function ttlOf(marker: unknown): "5m" | "1h" | undefined {
  if (!isObject(marker)) return undefined
  return marker.ttl === "1h" ? "1h" : "5m"
}

/** Splits a value into its `cache_control` marker (if any) and the value without it. */
function withoutMarker(value: unknown): { value: unknown; breakpoint?: "5m" | "1h" } {
  if (!isObject(value) || !("cache_control" in value)) return { value }
  const { cache_control: marker, ...rest } = value
  const ttl = ttlOf(marker)
  return ttl ? { value: rest, breakpoint: ttl } : { value: rest }
}

/** The kind of a block, from its `type` or the one key that names it (Gemini parts). */
function kindOf(value: unknown): string {
  if (typeof value === "string") return "text"
  if (!isObject(value)) return "value"
  if (typeof value.type === "string") return value.type
  for (const key of ["text", "functionCall", "functionResponse", "inlineData", "fileData", "thought"])
    if (key in value) return key
  return "value"
}

/** The text of system content: a string, or the texts of its blocks joined as the provider joins them. */
function textOfContent(content: unknown): string {
  if (typeof content === "string") return content
  return list(content)
    .map((b) => (isObject(b) && typeof b.text === "string" ? b.text : ""))
    .join("\n")
}

function unitsOf(content: unknown, path: string): (WireUnit & { kind: string })[] {
  if (typeof content === "string" || content === undefined || content === null)
    return content ? [{ path, value: content, kind: "text" }] : []
  return list(content).map((block, j) => {
    const { value, breakpoint } = withoutMarker(block)
    return { path: `${path}[${j}]`, value, kind: kindOf(value), ...(breakpoint ? { breakpoint } : {}) }
  })
}

function longestTtl(parts: Omit<WireParts, "requestedTtl">): string | undefined {
  const all = [...parts.tools, ...parts.system, ...parts.messages.flatMap((m) => m.blocks)]
  if (all.some((u) => u.breakpoint === "1h")) return "1h"
  return all.some((u) => u.breakpoint) ? "5m" : undefined
}

/** Anthropic reads a string `content` as one text block (the Messages API calls it shorthand), so both lay out alike. */
function anthropicBlocks(content: unknown): unknown[] {
  if (typeof content === "string") return content === "" ? [] : [{ type: "text", text: content }]
  return list(content)
}

/**
 * An Anthropic block without its markers: its own `cache_control` and those of the blocks a tool result holds,
 * whose string `content` is one text block too. A marker inside a tool result counts as one on the result.
 */
function anthropicUnit(block: unknown): { value: unknown; breakpoint?: "5m" | "1h" } {
  const own = withoutMarker(block)
  const value = own.value
  if (!isObject(value) || value.type !== "tool_result" || value.content === undefined) return own
  let nested: "5m" | "1h" | undefined
  const content = anthropicBlocks(value.content).map((b) => {
    const inner = withoutMarker(b)
    if (inner.breakpoint && nested !== "1h") nested = inner.breakpoint
    return inner.value
  })
  const breakpoint = own.breakpoint ?? nested
  return { value: { ...value, content }, ...(breakpoint ? { breakpoint } : {}) }
}

/** Blocks that cannot carry a breakpoint, which Anthropic's automatic caching walks back past. */
const UNMARKABLE = new Set(["thinking", "redacted_thinking"])

/**
 * A top-level `cache_control` (Anthropic's automatic caching) marks the last block that can carry a marker: the
 * last message block that is not thinking or empty text, else the last system block, else the last tool.
 */
function placeAutomatic(parts: Pick<WireParts, "tools" | "system" | "messages">, ttl: "5m" | "1h"): void {
  for (const m of [...parts.messages].reverse()) {
    for (const unit of [...m.blocks].reverse()) {
      const value = unit.value as Json
      if (UNMARKABLE.has(unit.kind) || (unit.kind === "text" && value.text === "")) continue
      unit.breakpoint ??= ttl
      return
    }
  }
  const last = parts.system.at(-1) ?? parts.tools.at(-1)
  if (last) last.breakpoint ??= ttl
}

function readAnthropic(body: Json): WireParts {
  const tools = list(body.tools).map((t, i) => {
    const { value, breakpoint } = withoutMarker(t)
    const name = isObject(value) && typeof value.name === "string" ? value.name : `tool ${i}`
    return { path: `tools[${i}]`, name, value, ...(breakpoint ? { breakpoint } : {}) }
  })
  const system =
    typeof body.system === "string"
      ? [{ path: "system", value: body.system, text: body.system }]
      : list(body.system).map((b, i) => {
          const { value, breakpoint } = withoutMarker(b)
          return { path: `system[${i}]`, value, text: textOfContent([value]), ...(breakpoint ? { breakpoint } : {}) }
        })
  const messages = list(body.messages).map((m, i) => {
    const { content, ...head } = isObject(m) ? m : { content: m }
    const path = `messages[${i}]`
    const blocks = anthropicBlocks(content).map((block, j) => {
      const { value, breakpoint } = anthropicUnit(block)
      const at = typeof content === "string" ? `${path}.content` : `${path}.content[${j}]`
      return { path: at, value, kind: kindOf(value), ...(breakpoint ? { breakpoint } : {}) }
    })
    return { path, role: String(head.role ?? ""), head, blocks }
  })
  const metadata = isObject(body.metadata) ? body.metadata : {}
  const parts = { tools, system, messages }
  const automatic = ttlOf(body.cache_control)
  if (automatic) placeAutomatic(parts, automatic)
  const ttl = longestTtl(parts)
  return {
    ...parts,
    ...(typeof metadata.user_id === "string" ? { sessionId: metadata.user_id } : {}),
    ...(ttl ? { requestedTtl: ttl } : {}),
  }
}

const SYSTEM_ROLES = new Set(["system", "developer"])

/** OpenAI Chat (and DeepSeek): leading system or developer messages are the system prompt. */
function readOpenAIChat(body: Json): WireParts {
  const tools = list(body.tools).map((t, i) => {
    const fn = isObject(t) && isObject(t.function) ? t.function : isObject(t) ? t : {}
    return { path: `tools[${i}]`, name: typeof fn.name === "string" ? fn.name : `tool ${i}`, value: t }
  })
  const all = list(body.messages)
  let first = 0
  while (first < all.length && isObject(all[first]) && SYSTEM_ROLES.has(String((all[first] as Json).role))) first++
  const system = all.slice(0, first).map((m, i) => ({
    path: `messages[${i}]`,
    value: m,
    text: textOfContent((m as Json).content),
  }))
  const messages = all.slice(first).map((m, k) => {
    const i = first + k
    const { content, tool_calls: calls, ...head } = isObject(m) ? m : { content: m }
    const path = `messages[${i}]`
    const blocks = unitsOf(content, `${path}.content`)
    list(calls).forEach((call, j) => {
      blocks.push({ path: `${path}.tool_calls[${j}]`, value: call, kind: "tool_call" })
    })
    return { path, role: String(head.role ?? ""), head, blocks }
  })
  return withSession(body, { tools, system, messages })
}

function withSession(body: Json, parts: Omit<WireParts, "sessionId" | "requestedTtl">): WireParts {
  return {
    ...parts,
    ...(typeof body.prompt_cache_key === "string" ? { sessionId: body.prompt_cache_key } : {}),
    ...(typeof body.prompt_cache_retention === "string" ? { requestedTtl: body.prompt_cache_retention } : {}),
  }
}

/** OpenAI Responses: `instructions`, then leading system or developer items, then the input items. */
function readOpenAIResponses(body: Json): WireParts {
  const tools = list(body.tools).map((t, i) => ({
    path: `tools[${i}]`,
    name:
      isObject(t) && typeof t.name === "string" ? t.name : isObject(t) ? String(t.type ?? `tool ${i}`) : `tool ${i}`,
    value: t,
  }))
  const system: WireParts["system"] = []
  if (typeof body.instructions === "string" && body.instructions)
    system.push({ path: "instructions", value: body.instructions, text: body.instructions })
  const input = typeof body.input === "string" ? [{ role: "user", content: body.input }] : list(body.input)
  let first = 0
  while (first < input.length && isObject(input[first]) && SYSTEM_ROLES.has(String((input[first] as Json).role))) {
    system.push({ path: `input[${first}]`, value: input[first], text: textOfContent((input[first] as Json).content) })
    first++
  }
  const messages = input.slice(first).map((item, k) => {
    const path = `input[${first + k}]`
    const object = isObject(item) ? item : { content: item }
    if (object.type === "message" || (object.type === undefined && "role" in object)) {
      const { content, ...head } = object
      return { path, role: String(head.role ?? ""), head, blocks: unitsOf(content, `${path}.content`) }
    }
    // A function call, its output, a reasoning item: one item, one block.
    const role = object.type === "function_call_output" ? "tool" : "assistant"
    return { path, role, head: {}, blocks: [{ path, value: object, kind: String(object.type ?? "item") }] }
  })
  return withSession(body, { tools, system, messages })
}

/** Gemini: `systemInstruction`, the function declarations, then `contents`. */
function readGemini(body: Json): WireParts {
  const tools: WireTool[] = []
  list(body.tools).forEach((group, i) => {
    const declarations = isObject(group) ? list(group.functionDeclarations) : []
    if (declarations.length === 0)
      tools.push({ path: `tools[${i}]`, name: Object.keys(group ?? {})[0] ?? "", value: group })
    declarations.forEach((d, j) => {
      const name = isObject(d) && typeof d.name === "string" ? d.name : `tool ${i}.${j}`
      tools.push({ path: `tools[${i}].functionDeclarations[${j}]`, name, value: d })
    })
  })
  const instruction = isObject(body.systemInstruction) ? body.systemInstruction : undefined
  const system = list(instruction?.parts).map((p, i) => ({
    path: `systemInstruction.parts[${i}]`,
    value: p,
    text: isObject(p) && typeof p.text === "string" ? p.text : "",
  }))
  const messages = list(body.contents).map((c, i) => {
    const { parts, ...head } = isObject(c) ? c : { parts: c }
    const path = `contents[${i}]`
    return { path, role: String(head.role ?? "user"), head, blocks: unitsOf(parts, `${path}.parts`) }
  })
  return { tools, system, messages }
}

/** The reader of each wire shape; a format is read by the reader of the shape it speaks. */
export const WIRE_READERS: { readonly [S in SpokenFormat]: (body: Json) => WireParts } = {
  anthropic: readAnthropic,
  "openai-chat": readOpenAIChat,
  "openai-responses": readOpenAIResponses,
  gemini: readGemini,
}

/** Takes an encoded body apart with the reader of `shape`; a body that is not an object has no parts. */
export function readWireParts(shape: SpokenFormat, body: unknown): WireParts {
  return isObject(body) ? WIRE_READERS[shape](body) : { tools: [], system: [], messages: [] }
}
