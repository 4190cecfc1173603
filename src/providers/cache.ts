/**
 * Prompt caching. Anthropic caches the prefix up to each `cache_control` breakpoint (tools → system →
 * messages); this module decides where breakpoints go and reports why, and the encoders write them. OpenAI
 * caches automatically and only takes a cache key and a retention, which the OpenAI encoders copy from the
 * same settings.
 */
import { type Diagnostic, diagnostic } from "../diagnostics.js"
import type { ModelInfo } from "../models/types.js"

export type CacheTtl = "5m" | "1h"

/** Anthropic's `cache_control` marker for a breakpoint with this lifetime (5 minutes is the default, so left out). */
export function cacheControl(ttl: CacheTtl): { type: "ephemeral"; ttl?: "1h" } {
  return ttl === "1h" ? { type: "ephemeral", ttl: "1h" } : { type: "ephemeral" }
}

/** Where explicit breakpoints go: after the tools, after the system prompt, on the last N user messages. */
export interface BreakpointPolicy {
  tools?: boolean
  system?: boolean
  userMessages?: number
}

/** Prompt-cache settings of a request. */
export interface CacheSettings {
  /** Anthropic time-to-live of every breakpoint (default 5m). */
  ttl?: CacheTtl
  /** Anthropic breakpoint placement (default: system prompt and the last two user messages). */
  breakpoints?: BreakpointPolicy
  /** Session id, sent to OpenAI as `prompt_cache_key` so requests of one session land on the same cache. */
  sessionId?: string
  /** OpenAI `prompt_cache_retention`. */
  retention?: "in_memory" | "24h"
}

/** The default placement: system prompt and the last two user messages, tools not separately. */
export const DEFAULT_BREAKPOINT_POLICY: Required<BreakpointPolicy> = { tools: false, system: true, userMessages: 2 }

/** Minimum cacheable prefix when the catalog has no figure for the model (Anthropic's smallest published one). */
export const DEFAULT_MIN_CACHE_TOKENS = 1024

/** Most breakpoints one Anthropic request may carry, tools included. */
export const DEFAULT_MAX_BREAKPOINTS = 4

/** Tokens counted for one image when estimating a prefix (about a megapixel image). */
export const IMAGE_TOKEN_ESTIMATE = 1600

/** One breakpoint considered: where, the estimated prefix size, and whether it was written and why. */
export interface CacheBreakpoint {
  target: "tools" | "system" | "message"
  /** Index into the request's messages (for `message`). */
  messageIndex?: number
  /** Index of the content block that carries `cache_control` (system block, tool, or message block). */
  blockIndex?: number
  ttl: CacheTtl
  /** Estimated tokens of everything up to and including this point (characters / 4, images a fixed figure). */
  prefixTokens: number
  placed: boolean
  reason: string
}

/** The request in cache order, reduced to what placement needs: which blocks exist and their size. */
export interface CacheLayout {
  /** Estimated tokens of each tool definition, in order. */
  tools: number[]
  /** Estimated tokens of each system block, in order. */
  system: number[]
  messages: { role: "user" | "assistant" | "system"; blocks: { type: string; tokens: number }[] }[]
}

/** Block types that may never carry a breakpoint. */
const UNCACHEABLE = new Set(["thinking", "redacted_thinking"])

/**
 * Cheap token estimate of an encoded value: characters of its strings / 4, plus a fixed figure per base64
 * image (their size in tokens depends on pixels, not bytes). Keys are not counted.
 */
export function estimateTokens(value: unknown): number {
  return Math.ceil(countChars(value) / 4)
}

function countChars(value: unknown): number {
  if (typeof value === "string") return value.length
  if (typeof value === "number" || typeof value === "boolean") return 4
  if (Array.isArray(value)) {
    let n = 0
    for (const v of value) n += countChars(v)
    return n
  }
  if (value !== null && typeof value === "object") {
    const o = value as Record<string, unknown>
    if (o.type === "base64" || o.type === "image" || o.type === "image_url" || o.type === "input_image")
      return IMAGE_TOKEN_ESTIMATE * 4
    let n = 0
    for (const key in o) n += countChars(o[key])
    return n
  }
  return 0
}

/** Decides the breakpoints of a request; never more than the model allows, never on thinking blocks. */
export function planBreakpoints(
  layout: CacheLayout,
  model: ModelInfo,
  settings: CacheSettings | false | undefined,
): { breakpoints: CacheBreakpoint[]; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = []
  if (settings === false) return { breakpoints: [], diagnostics }
  const policy = { ...DEFAULT_BREAKPOINT_POLICY, ...settings?.breakpoints }
  const minTokens = model.cache?.minTokens ?? DEFAULT_MIN_CACHE_TOKENS
  const max = model.cache?.maxBreakpoints || DEFAULT_MAX_BREAKPOINTS
  let ttl: CacheTtl = settings?.ttl ?? "5m"
  if (ttl === "1h" && model.cache && !model.cache.ttls.includes("1h")) {
    diagnostics.push(diagnostic("warning", "cache-ttl-unsupported", `${model.id} has no 1h cache; 5m used`))
    ttl = "5m"
  }

  // Candidates in prefix order, each with the size of the prefix it closes.
  const candidates: CacheBreakpoint[] = []
  let prefix = 0
  for (const t of layout.tools) prefix += t
  if (policy.tools && layout.tools.length > 0)
    candidates.push(candidate("tools", prefix, ttl, { blockIndex: layout.tools.length - 1 }))
  for (const s of layout.system) prefix += s
  if (policy.system && layout.system.length > 0)
    candidates.push(candidate("system", prefix, ttl, { blockIndex: layout.system.length - 1 }))

  const users = new Set<number>()
  for (let i = layout.messages.length - 1; i >= 0 && users.size < policy.userMessages; i--)
    if (layout.messages[i]!.role === "user") users.add(i)
  layout.messages.forEach((message, i) => {
    let last = -1
    let lastPrefix = prefix
    for (let j = 0; j < message.blocks.length; j++) {
      prefix += message.blocks[j]!.tokens
      if (!UNCACHEABLE.has(message.blocks[j]!.type)) {
        last = j
        lastPrefix = prefix
      }
    }
    if (!users.has(i)) return
    if (last === -1) {
      candidates.push({
        ...candidate("message", prefix, ttl, { messageIndex: i }),
        placed: false,
        reason: "no block that may carry a breakpoint",
      })
      return
    }
    candidates.push(candidate("message", lastPrefix, ttl, { messageIndex: i, blockIndex: last }))
  })

  for (const c of candidates) {
    if (c.placed && c.prefixTokens < minTokens) {
      c.placed = false
      c.reason = `prefix of about ${c.prefixTokens} tokens is below the minimum of ${minTokens} for ${model.id}`
    }
  }
  // Over the limit: keep tools and system (stable, earliest), drop the oldest message breakpoints.
  const dropOrder = [
    ...candidates.filter((c) => c.target === "message"),
    ...candidates.filter((c) => c.target === "tools"),
    ...candidates.filter((c) => c.target === "system"),
  ]
  let placed = candidates.filter((c) => c.placed).length
  for (const c of dropOrder) {
    if (placed <= max) break
    if (c.placed) {
      c.placed = false
      c.reason = `limit of ${max} breakpoints per request reached`
      placed--
    }
  }
  return { breakpoints: candidates, diagnostics }
}

function candidate(
  target: CacheBreakpoint["target"],
  prefixTokens: number,
  ttl: CacheTtl,
  where: { messageIndex?: number; blockIndex?: number },
): CacheBreakpoint {
  const reason =
    target === "tools"
      ? "end of the tool definitions"
      : target === "system"
        ? "end of the system prompt"
        : "one of the last user messages"
  return { target, ...where, ttl, prefixTokens, placed: true, reason }
}
