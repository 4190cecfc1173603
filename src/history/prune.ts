import type { TokenizerFamily } from "../models/types.js"
import { prunedNotice } from "../notices.js"
import type { BlockEdit } from "./edits.js"
import type { Message } from "./message.js"
import type { Overhead, TokenCounter } from "./tokens.js"

/** Options of `pruneToolOutputs`. */
export interface PruneOptions {
  /** Tool outputs within the newest this-many tokens of outputs are kept. */
  keepRecent: number
  /** Prune only when it frees at least this many tokens. */
  minFree: number
  now: number
}

export { prunedNotice } from "../notices.js"

/**
 * Opt-in pruning of old tool outputs: walking from the newest output back, once `keepRecent` tokens of
 * outputs are kept, every older output is replaced by a placeholder, if that frees at least `minFree`.
 */
export function pruneToolOutputs(
  view: readonly Message[],
  counter: TokenCounter,
  family: TokenizerFamily,
  overhead: Overhead,
  options: PruneOptions,
): { edits: BlockEdit[]; freed: number } {
  const names = new Map<string, string>()
  for (const m of view) for (const b of m.content) if (b.type === "tool_use") names.set(b.id, b.name)
  let kept = 0
  let freed = 0
  const edits: BlockEdit[] = []
  for (let mi = view.length - 1; mi >= 0; mi--) {
    const m = view[mi]!
    for (let bi = m.content.length - 1; bi >= 0; bi--) {
      const b = m.content[bi]!
      if (b.type !== "tool_result") continue
      const tool = names.get(b.toolUseId) ?? "tool"
      const notice = prunedNotice(tool)
      if (b.content === notice) continue
      const tokens = counter.countBlock(b, family, overhead)
      if (kept < options.keepRecent) {
        kept += tokens
        continue
      }
      const content = { ...b, content: notice }
      freed += tokens - counter.countText(notice, family)
      edits.push({ kind: "prune", ts: options.now, messageId: m.id, block: bi, content, subject: tool })
    }
  }
  return freed >= options.minFree ? { edits: edits.reverse(), freed } : { edits: [], freed: 0 }
}
