/**
 * Two cache layouts compared: the first unit where they differ, the tokens of the prefix they share, and
 * what the difference is (a tool added, removed, reordered or edited; a system section changed; a message
 * edited, deduplicated, dropped or re-serialized). One pass over the units, so the cost is linear.
 */

import { MASK_PREFIX } from "../history/mask.js"
import type { TokenCounter } from "../history/tokens.js"
import { dedupNotice, prunedNotice, TRUNCATION_NOTICE } from "../notices.js"
import type { CacheLayout, LayoutSegment } from "./cache-layout.js"

/** The first differing bytes of a unit, with some text either side. */
export interface Excerpt {
  /** Character offset of the first difference within the unit. */
  offset: number
  before: string
  after: string
}

/** What changed at the first difference. */
export type LayoutChange =
  | { part: "tools"; change: "added" | "removed" | "reordered" | "edited"; tool: string; path: string }
  | { part: "system"; section: string; path: string; excerpt: Excerpt }
  | {
      part: "messages"
      message: number
      block: number
      path: string
      change: "edit" | "dedup" | "truncation" | "reserialization"
      excerpt: Excerpt
    }

/** The result of comparing a request with the previous one. */
export interface LayoutComparison {
  /** Index (in the current layout) of the first unit that differs; the length of the shorter layout when none does. */
  firstDifference: number
  /** Tokens of the prefix both share, in the current request. */
  sharedTokens: number
  /** The previous request is wholly a prefix of the current one. */
  previousShared: boolean
  change?: LayoutChange
}

const CONTEXT = 40

/** The fixed starts of promptline's stubs (dedup, prune, mask, truncation notices). */
const NOTICE_MARKERS = [
  dedupNotice("\u0000").split("\u0000")[0]!,
  prunedNotice("\u0000").split("\u0000")[0]!,
  MASK_PREFIX,
  TRUNCATION_NOTICE.slice(0, 60),
]

/** Block kinds that carry a tool's result. */
const TOOL_RESULT_KINDS = new Set(["tool_result", "function_call_output", "functionResponse"])

/** Compares the current layout with the previous one of its conversation. */
export function compareLayouts(previous: CacheLayout, current: CacheLayout, counter: TokenCounter): LayoutComparison {
  const a = previous.segments
  const b = current.segments
  const n = Math.min(a.length, b.length)
  let d = 0
  while (d < n && a[d]!.hash === b[d]!.hash) d++
  const base = d === 0 ? 0 : current.ends[d - 1]!
  if (d === a.length) return { firstDifference: d, sharedTokens: base, previousShared: true }
  let partial = 0
  if (d < b.length && a[d]!.part === b[d]!.part) {
    const prefix = commonPrefix(a[d]!.text, b[d]!.text)
    if (prefix > 0)
      partial = Math.min(b[d]!.tokens, counter.countText(b[d]!.text.slice(0, prefix), current.model.tokenizer))
  }
  return {
    firstDifference: d,
    sharedTokens: base + partial,
    previousShared: false,
    change: describeChange(previous, current, d),
  }
}

/** Length of the common prefix of two strings. */
export function commonPrefix(x: string, y: string): number {
  const n = Math.min(x.length, y.length)
  let i = 0
  while (i < n && x.charCodeAt(i) === y.charCodeAt(i)) i++
  return i
}

/** The first differing bytes of two texts, with context. */
export function excerptOf(before: string, after: string): Excerpt {
  const offset = commonPrefix(before, after)
  const from = Math.max(0, offset - CONTEXT)
  const clip = (s: string) =>
    `${from > 0 ? "…" : ""}${s.slice(from, offset + CONTEXT)}${offset + CONTEXT < s.length ? "…" : ""}`
  return { offset, before: clip(before), after: clip(after) }
}

function describeChange(previous: CacheLayout, current: CacheLayout, d: number): LayoutChange {
  const was = previous.segments[d]
  const now = current.segments[d]
  // The earlier of the two parts (in caching order) is where the change is.
  const order = current.scheme.order
  const rank = (s: LayoutSegment | undefined) => (s ? order.indexOf(s.part) : Number.POSITIVE_INFINITY)
  const at = rank(was) <= rank(now) ? was! : now!
  if (at.part === "tools") return toolChange(previous, current)
  if (at.part === "system") {
    const before = was?.part === "system" ? was.text : ""
    const after = now?.part === "system" ? now.text : ""
    const section = now?.part === "system" ? now.section! : was!.section!
    return { part: "system", section, path: at.path, excerpt: excerptOf(before, after) }
  }
  return messageChange(previous, current, was, now)
}

function toolChange(previous: CacheLayout, current: CacheLayout): LayoutChange {
  const tools = (l: CacheLayout) => l.segments.filter((s) => s.part === "tools")
  const a = tools(previous)
  const b = tools(current)
  const names = (l: LayoutSegment[]) => l.map((s) => s.tool!)
  const before = new Set(names(a))
  const after = new Set(names(b))
  const added = b.find((s) => !before.has(s.tool!))
  if (added) return { part: "tools", change: "added", tool: added.tool!, path: added.path }
  const removed = a.find((s) => !after.has(s.tool!))
  if (removed) return { part: "tools", change: "removed", tool: removed.tool!, path: removed.path }
  const moved = b.findIndex((s, i) => s.tool !== a[i]?.tool)
  if (moved >= 0) return { part: "tools", change: "reordered", tool: b[moved]!.tool!, path: b[moved]!.path }
  const byName = new Map(a.map((s) => [s.tool!, s.hash]))
  const edited = b.find((s) => byName.get(s.tool!) !== s.hash) ?? b[0]!
  return { part: "tools", change: "edited", tool: edited.tool!, path: edited.path }
}

function messageChange(
  previous: CacheLayout,
  current: CacheLayout,
  was: LayoutSegment | undefined,
  now: LayoutSegment | undefined,
): LayoutChange {
  const at = (now?.part === "messages" ? now : was)!
  const message = at.message ?? 0
  const block = at.block ?? 0
  const base = { part: "messages" as const, message, block, path: at.path }
  const text = (s: LayoutSegment | undefined, other: LayoutSegment | undefined) =>
    s?.part !== "messages" ? "" : other && s.text === other.text ? s.bytes : s.text
  const excerpt = excerptOf(text(was, now), text(now, was))
  // Messages dropped: the current message is a later message of the previous request, or there is none.
  if (now?.part !== "messages" || droppedBefore(previous, current, message))
    return { ...base, change: "truncation", excerpt }
  if (was?.part !== "messages") return { ...base, change: "edit", excerpt }
  if (canonical(was.bytes) === canonical(now.bytes)) return { ...base, change: "reserialization", excerpt }
  // Dedup: a tool result (or any block) that became one of promptline's stubs, or a tool result cut to under half.
  const stub = NOTICE_MARKERS.some((m) => now.text.includes(m) && !was.text.includes(m))
  const result = TOOL_RESULT_KINDS.has(now.kind) || now.role === "tool"
  if (stub || (result && now.text.length < was.text.length / 2)) return { ...base, change: "dedup", excerpt }
  return { ...base, change: "edit", excerpt }
}

/** Messages of the previous request are missing at `message`: one of the next few current messages is a later previous one. */
function droppedBefore(previous: CacheLayout, current: CacheLayout, message: number): boolean {
  const at = new Map<string, number>()
  for (const [i, h] of previous.messageHashes) if (i >= message) at.set(h, i)
  for (let k = 0; k < 6; k++) {
    const hash = current.messageHashes.get(message + k)
    if (hash === undefined) break
    const was = at.get(hash)
    if (was !== undefined && was > message + k) return true
  }
  return false
}

/** A value's meaning without its serialization: JSON (also inside strings) with sorted keys, whitespace collapsed. */
export function canonical(bytes: string): string {
  const parsed = parseAll(bytes)
  return JSON.stringify(sortKeys(parsed)).replace(/\s+/g, " ")
}

function parseAll(text: string): unknown {
  // The first unit of a message is `head\nblock`; both halves are JSON.
  const parts = text.split("\n").length === 2 && text.startsWith("{") ? text.split("\n") : [text]
  const values = parts.map((p) => {
    try {
      return JSON.parse(p) as unknown
    } catch {
      return p
    }
  })
  return values.length === 1 ? values[0] : values
}

function sortKeys(value: unknown): unknown {
  if (typeof value === "string") {
    const t = value.trim()
    if ((t.startsWith("{") && t.endsWith("}")) || (t.startsWith("[") && t.endsWith("]"))) {
      try {
        return sortKeys(JSON.parse(t))
      } catch {
        return value.replace(/\s+/g, " ").trim()
      }
    }
    return value.replace(/\s+/g, " ").trim()
  }
  if (Array.isArray(value)) return value.map(sortKeys)
  if (value !== null && typeof value === "object") {
    const o = value as Record<string, unknown>
    return Object.fromEntries(
      Object.keys(o)
        .sort()
        .map((k) => [k, sortKeys(o[k])]),
    )
  }
  return value
}
