/**
 * Which conversation a request belongs to. An explicit id the caller passes (the `x-promptline-conversation`
 * header) names it outright. Otherwise requests are grouped by their first user message, and by the session id
 * the body carries (`prompt_cache_key`, Anthropic `metadata.user_id`) when there is one; within a group a request
 * continues the conversation whose last request asked the same model with mostly the same tools and system prompt
 * (`affinity`). A side call with its own system prompt or tools (a memory extraction, a title, a sub-agent) starts
 * a conversation of its own, while a system prompt whose volatile tail changes each turn, a tool added or a
 * section edited stays in its conversation and shows up as a miss there.
 */
import { createHash } from "node:crypto"
import { commonPrefix } from "./cache-compare.js"
import type { CacheLayout } from "./cache-layout.js"

/** A request's conversation keys: the key a conversation it starts gets, and the group it is matched within. */
export interface ConversationKeys {
  key: string
  /** The group (first user message, and the body's session id) to match within; absent when the key is explicit. */
  group?: string
}

const short = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 16)

/** The keys of a laid-out request; `explicit` is a header or conversation id the caller has. */
export function conversationKeys(layout: CacheLayout, explicit?: string): ConversationKeys {
  if (explicit) return { key: `id-${short(explicit)}` }
  const fixed = layout.segments.filter((s) => s.part !== "messages").map((s) => s.hash)
  const first = layout.segments.find((s) => s.part === "messages" && s.role === "user")
  const firstUser = first
    ? layout.segments
        .filter((s) => s.part === "messages" && s.message === first.message)
        .map((s) => s.hash)
        .join(",")
    : ""
  const session = layout.sessionId
  const key = `${session ? "s" : "h"}-${short(`${layout.model.id}|${fixed.join(",")}|${firstUser}|${session ?? ""}`)}`
  if (session) return { key, group: `s-${short(`${session}|${firstUser}`)}` }
  return firstUser ? { key, group: short(firstUser) } : { key }
}

/** The least share of tools and of system prompt text a request keeps from the conversation it continues. */
const KEPT = 0.5

/**
 * How closely `current` continues the conversation whose last request was `previous`: undefined when it cannot
 * (another model, whose cache it cannot read, or less than half of the tools or of the system prompt kept), else
 * a score (2 when tools and system prompt are the same) to pick the closest of several conversations.
 */
export function affinity(previous: CacheLayout, current: CacheLayout): number | undefined {
  if (previous.model.id !== current.model.id) return undefined
  const tools = toolsKept(previous, current)
  const system = systemKept(previous, current)
  return tools >= KEPT && system >= KEPT ? tools + system : undefined
}

/** Share of the tool names both requests have, of the larger list (1 when neither has tools). */
function toolsKept(a: CacheLayout, b: CacheLayout): number {
  const names = (l: CacheLayout) => l.segments.flatMap((s) => (s.part === "tools" ? [s.tool ?? s.label] : []))
  const x = names(a)
  const y = names(b)
  if (x.length === 0 && y.length === 0) return 1
  const left = new Map<string, number>()
  for (const n of x) left.set(n, (left.get(n) ?? 0) + 1)
  let shared = 0
  for (const n of y) {
    const k = left.get(n) ?? 0
    if (k > 0) {
      shared++
      left.set(n, k - 1)
    }
  }
  return shared / Math.max(x.length, y.length)
}

/**
 * Share of the system prompt text kept (1 when neither has one): the larger of the text kept at its start and end
 * (a volatile tail, or one long line with a changing end) and the text of the lines both have (lines that change
 * at the top and the tail at once, an edit in the middle). Another prompt keeps next to nothing either way.
 */
function systemKept(a: CacheLayout, b: CacheLayout): number {
  const text = (l: CacheLayout) =>
    l.segments
      .filter((s) => s.part === "system")
      .map((s) => s.text)
      .join("")
  const x = text(a)
  const y = text(b)
  if (x === "" && y === "") return 1
  const head = commonPrefix(x, y)
  let tail = 0
  const room = Math.min(x.length, y.length) - head
  while (tail < room && x.charCodeAt(x.length - 1 - tail) === y.charCodeAt(y.length - 1 - tail)) tail++
  return Math.max(head + tail, linesKept(x, y)) / Math.max(x.length, y.length)
}

/** Characters of the lines two texts both have (each line counted as often as both have it), newlines included. */
function linesKept(x: string, y: string): number {
  const left = new Map<string, number>()
  for (const line of x.split("\n")) left.set(line, (left.get(line) ?? 0) + 1)
  let kept = 0
  for (const line of y.split("\n")) {
    const k = left.get(line) ?? 0
    if (k === 0) continue
    left.set(line, k - 1)
    kept += line.length + 1
  }
  return kept
}
