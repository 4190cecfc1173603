import type { Edit } from "./edits.js"
import { blockSchema } from "./history-file.js"
import type { Block, Message } from "./message.js"

/**
 * The soundness checks of a change log against the history it edits: the one place `ChangeLog.fromJSON`,
 * `ChangeLog.load`, `fit --change-log` and `run --resume` share. A log can be valid JSON of the right schema and
 * still be wrong for this history (edited by hand, saved for another conversation, or left behind by a history
 * that lost lines): applying it would hide the task or orphan tool calls and results.
 */

/** Whether a replacement keeps a block's role in the tool-call pairing (same call id, or no call at all). */
function keepsPairing(original: Block, replacement: Block): boolean {
  if (original.type === "tool_result")
    return replacement.type === "tool_result" && replacement.toolUseId === original.toolUseId
  if (original.type === "tool_use") return replacement.type === "tool_use" && replacement.id === original.id
  return replacement.type !== "tool_result" && replacement.type !== "tool_use"
}

/** One line per edit that cannot apply to `history`; an empty list when every edit is sound. */
export function checkEdits(edits: readonly Edit[], history: readonly Message[]): string[] {
  const position = new Map(history.map((m, i) => [m.id, i]))
  const problems: string[] = []
  edits.forEach((e, i) => {
    const where = `edit ${i + 1} (${e.kind})`
    if (e.kind === "truncation" || e.kind === "compaction") {
      const from = position.get(e.from)
      const to = position.get(e.to)
      if (from === undefined || to === undefined)
        problems.push(`${where} names a message that is not in the history (${from === undefined ? e.from : e.to})`)
      else if (to < from) problems.push(`${where} ends before it starts`)
      else if (from < 2) problems.push(`${where} hides part of the first exchange (the task)`)
      return
    }
    const index = position.get(e.messageId)
    if (index === undefined) {
      problems.push(`${where} names a message that is not in the history (${e.messageId})`)
      return
    }
    if (!("block" in e)) return
    const original = history[index]!.content[e.block]
    if (!original) {
      problems.push(`${where} replaces block ${e.block} of ${e.messageId}, which has no such block`)
      return
    }
    if (!blockSchema.safeParse(e.content).success) {
      problems.push(`${where} puts a block that is not a valid content block into ${e.messageId}`)
      return
    }
    if (!keepsPairing(original, e.content))
      problems.push(`${where} replaces a ${original.type} block of ${e.messageId} with a ${e.content.type} block`)
  })
  return problems
}
