/**
 * An encoded request body taken apart into the units its provider caches: the tool definitions, the system prompt,
 * and each message's blocks, with where `cache_control` breakpoints sit. Each format's module reads its own shape
 * (`wireParts`, in `<format>/wire-parts.ts`) with the helpers below; the cache explainer (cache/cache-layout.ts)
 * orders, measures and compares the pieces.
 */

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

/** A JSON object. */
export type Json = Record<string, unknown>

/** Whether a value is a JSON object. */
export const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v)
/** An array, or an empty one. */
export const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : [])

/** The lifetime a `cache_control` value asks for; none for a missing or null marker. */
export function ttlOf(marker: unknown): "5m" | "1h" | undefined {
  if (!isObject(marker)) return undefined
  return marker.ttl === "1h" ? "1h" : "5m"
}

/** Splits a value into its `cache_control` marker (if any) and the value without it. */
export function withoutMarker(value: unknown): { value: unknown; breakpoint?: "5m" | "1h" } {
  if (!isObject(value) || !("cache_control" in value)) return { value }
  const { cache_control: marker, ...rest } = value
  const ttl = ttlOf(marker)
  return ttl ? { value: rest, breakpoint: ttl } : { value: rest }
}

/** The kind of a block, from its `type` or the one key that names it (Gemini parts). */
export function kindOf(value: unknown): string {
  if (typeof value === "string") return "text"
  if (!isObject(value)) return "value"
  if (typeof value.type === "string") return value.type
  for (const key of ["text", "functionCall", "functionResponse", "inlineData", "fileData", "thought"])
    if (key in value) return key
  return "value"
}

/** The text of system content: a string, or the texts of its blocks joined as the provider joins them. */
export function textOfContent(content: unknown): string {
  if (typeof content === "string") return content
  return list(content)
    .map((b) => (isObject(b) && typeof b.text === "string" ? b.text : ""))
    .join("\n")
}

/** The blocks of a message's content (a string is one text block), each without its marker. */
export function unitsOf(content: unknown, path: string): (WireUnit & { kind: string })[] {
  if (typeof content === "string" || content === undefined || content === null)
    return content ? [{ path, value: content, kind: "text" }] : []
  return list(content).map((block, j) => {
    const { value, breakpoint } = withoutMarker(block)
    return { path: `${path}[${j}]`, value, kind: kindOf(value), ...(breakpoint ? { breakpoint } : {}) }
  })
}

/** The longest lifetime any breakpoint of the parts asks for. */
export function longestTtl(parts: Omit<WireParts, "requestedTtl">): string | undefined {
  const all = [...parts.tools, ...parts.system, ...parts.messages.flatMap((m) => m.blocks)]
  if (all.some((u) => u.breakpoint === "1h")) return "1h"
  return all.some((u) => u.breakpoint) ? "5m" : undefined
}

/** The roles whose leading messages (or items) are an OpenAI request's system prompt. */
export const SYSTEM_ROLES = new Set(["system", "developer"])

/** The parts with the session and lifetime OpenAI's prompt-cache fields ask for (`prompt_cache_key`, `prompt_cache_retention`). */
export function withSession(body: Json, parts: Omit<WireParts, "sessionId" | "requestedTtl">): WireParts {
  return {
    ...parts,
    ...(typeof body.prompt_cache_key === "string" ? { sessionId: body.prompt_cache_key } : {}),
    ...(typeof body.prompt_cache_retention === "string" ? { requestedTtl: body.prompt_cache_retention } : {}),
  }
}
