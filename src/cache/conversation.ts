/**
 * Which conversation a request belongs to. An explicit id wins (a header, a session id, the body's own
 * `prompt_cache_key` or `metadata.user_id`); otherwise the key is a hash of the system prompt, the tools and
 * the first user message. A second, looser key (the first user message alone) lets a request whose system
 * prompt or tools changed still join its conversation, so that change is reported as a miss.
 */
import { createHash } from "node:crypto"
import type { CacheLayout } from "./cache-layout.js"

/** The keys of a request's conversation: the exact one, and the first-message one used as a fallback. */
export interface ConversationKeys {
  key: string
  /** Hash of the first user message alone (absent when there is none or the key is explicit). */
  loose?: string
}

const short = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 16)

/** The conversation keys of a laid-out request; `explicit` is a header or session id the caller has. */
export function conversationKeys(layout: CacheLayout, explicit?: string): ConversationKeys {
  const id = explicit ?? layout.sessionId
  if (id) return { key: `id-${short(id)}` }
  const fixed = layout.segments.filter((s) => s.part !== "messages").map((s) => s.hash)
  const first = layout.segments.find((s) => s.part === "messages" && s.role === "user")
  const firstUser = first
    ? layout.segments
        .filter((s) => s.part === "messages" && s.message === first.message)
        .map((s) => s.hash)
        .join(",")
    : ""
  return {
    key: `h-${short(`${fixed.join(",")}|${firstUser}`)}`,
    ...(firstUser ? { loose: short(firstUser) } : {}),
  }
}
