/** The Anthropic Messages body taken apart into its caching units (the cache explainer reads it). */
import {
  isObject,
  type Json,
  kindOf,
  list,
  longestTtl,
  textOfContent,
  ttlOf,
  type WireParts,
  withoutMarker,
} from "../wire-parts.js"

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

export function anthropicWireParts(body: Json): WireParts {
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
