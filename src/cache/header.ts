/**
 * The short `x-promptline-cache` header a server adds to its answer, and the one-line description of a verdict
 * used by the CLI: the verdict, the cause of a miss, and the share of the prompt read from the cache.
 */
import type { CacheVerdict, MissCause } from "./explain.js"

/** The header's name. */
export const CACHE_HEADER = "x-promptline-cache"

/** The header value: `hit; cached=0.94`, `miss; cause=tools-changed; cached=0.00`, `first; cached=0.00`. */
export function cacheHeader(verdict: CacheVerdict): string {
  const cause = verdict.cause ? `; cause=${verdict.cause.kind}` : ""
  return `${verdict.verdict}${cause}; cached=${verdict.cachedShare.toFixed(2)}`
}

const minutes = (ms: number) => `${(ms / 60_000).toFixed(ms < 600_000 ? 1 : 0)} min`

/** A cause in words. */
export function describeCause(cause: MissCause): string {
  switch (cause.kind) {
    case "tools-changed":
      return `tools changed: ${cause.tool} ${cause.change}`
    case "system-changed":
      return `system prompt changed in section "${cause.section}": ${JSON.stringify(cause.excerpt.before)} → ${JSON.stringify(cause.excerpt.after)}`
    case "message-changed":
      return `message ${cause.message} block ${cause.block} changed (${cause.change}) at ${cause.path}`
    case "expired":
      return `cache lifetime exceeded: ${minutes(cause.gapMs)} since the previous request, lifetime ${minutes(cause.lifetimeMs)}`
    case "below-minimum":
      return `prefix of ${cause.prefixTokens} tokens is below the model's minimum of ${cause.minimum}`
    case "no-breakpoint":
      return `no breakpoint covers the shared prefix of ${cause.prefixTokens} tokens`
    case "evicted":
      return `provider read ${cause.reported} tokens, ${cause.predicted} predicted, with no visible cause (eviction or routing)`
  }
}

/** A verdict in one line. */
export function describeVerdict(verdict: CacheVerdict): string {
  const share = `${(verdict.cachedShare * 100).toFixed(0)}% cached`
  if (verdict.verdict !== "miss") return `${verdict.verdict}: ${share}`
  const cost = verdict.addedCost > 0 ? `, +$${verdict.addedCost.toFixed(4)}` : ""
  return `miss: ${describeCause(verdict.cause!)} (${share}, ${verdict.missedTokens} tokens missed${cost})`
}
