import type { CompactionBlock, Message } from "./message.js"

/**
 * Provider-side compaction in the history: where the latest compaction item a provider returned stands, the
 * window of messages that still matters to that provider, and items made by another provider.
 */

/** Who a request goes to: its wire format and the catalog's provider id. */
export interface CompactionTarget {
  format: string
  provider: string
}

/** True when `block` was made by `target` (same wire format, and the same provider when the block names one). */
export function madeBy(block: CompactionBlock, target: CompactionTarget): boolean {
  return block.format === target.format && (block.provider === undefined || block.provider === target.provider)
}

/** Index of the last message holding a compaction item made by `target`, or -1. */
export function lastCompactionIndex(history: readonly Message[], target: CompactionTarget): number {
  return history.findLastIndex((m) => m.content.some((b) => b.type === "compaction" && madeBy(b, target)))
}

/**
 * The messages a request to `target` needs when the history holds one of its compaction items: the user's own
 * requests before the item (user messages without tool results; the item condensed the rest, and a request
 * must start with the user), then everything from the message holding the latest item. Anthropic ignores what
 * comes before its compaction block and OpenAI documents leaving out what comes before its item, so the rest is
 * neither sent nor counted. Without such an item the history is returned as it is.
 */
export function compactionWindow(history: readonly Message[], target: CompactionTarget): readonly Message[] {
  const at = lastCompactionIndex(history, target)
  if (at < 0) return history
  const requests = history
    .slice(0, at)
    .filter((m) => m.role === "user" && !m.content.some((b) => b.type === "tool_result"))
  return [...requests, ...history.slice(at)]
}

/** The compaction items of the history that `target` cannot read (made by another provider or wire format). */
export function foreignCompactions(history: readonly Message[], target: CompactionTarget): CompactionBlock[] {
  const out: CompactionBlock[] = []
  for (const m of history) for (const b of m.content) if (b.type === "compaction" && !madeBy(b, target)) out.push(b)
  return out
}
