import { CONTINUATION_PROMPT, TAG } from "../notices.js"
import { wrapTag } from "../tag-wrap.js"
import { type Block, type Message, type TextBlock, textOf } from "./message.js"

/**
 * Edits of the view. The full history is never changed; what is sent is the history with the
 * recorded edits applied. Every edit has a timestamp (milliseconds, supplied by the caller) and a kind.
 */

/** What an edit does, for explanations and undo. */
export type EditKind = "dedup" | "notice" | "truncation" | "reinject" | "prune" | "mask" | "compaction"

/** Replaces one block of one message (dedup of a file read, pruning or masking of an old tool output). */
export interface BlockEdit {
  kind: "dedup" | "prune" | "mask"
  ts: number
  messageId: string
  /** Index of the block in the original message. */
  block: number
  content: Block
  /** What the edit is about, e.g. the file path of a deduplicated read. */
  subject?: string
}

/** Appends a text block to a message (the truncation notice, re-injected project instructions). */
export interface AppendEdit {
  kind: "notice" | "reinject"
  ts: number
  messageId: string
  text: string
}

/** Hides the messages from `from` to `to` (ids, inclusive). */
export interface TruncationEdit {
  kind: "truncation"
  ts: number
  from: string
  to: string
}

/** Hides the messages from `from` to `to` and puts a user message with `summary` in their place. */
export interface CompactionEdit {
  kind: "compaction"
  ts: number
  from: string
  to: string
  summary: string
}

export type Edit = BlockEdit | AppendEdit | TruncationEdit | CompactionEdit

/** A hidden range of the history, by message ids, inclusive. */
export interface HiddenRange {
  from: string
  to: string
}

/** The edits grouped for rendering; built once per change of the edit list. */
export interface EditIndex {
  ranges: (TruncationEdit | CompactionEdit)[]
  byMessage: Map<string, (BlockEdit | AppendEdit)[]>
}

/** Groups edits by message; ranges in timestamp order. */
export function indexEdits(edits: readonly Edit[]): EditIndex {
  const ranges: (TruncationEdit | CompactionEdit)[] = []
  const byMessage = new Map<string, (BlockEdit | AppendEdit)[]>()
  for (const e of edits) {
    if (e.kind === "truncation" || e.kind === "compaction") ranges.push(e)
    else {
      const list = byMessage.get(e.messageId)
      if (list) list.push(e)
      else byMessage.set(e.messageId, [e])
    }
  }
  return { ranges, byMessage }
}

/** Applies block replacements (latest wins) and appended texts (each distinct text once) to a message. */
export function applyMessageEdits(message: Message, edits: readonly (BlockEdit | AppendEdit)[]): Message {
  const content: Block[] = [...message.content]
  const appended: string[] = []
  for (const e of edits) {
    if ("text" in e) {
      if (!appended.includes(e.text)) appended.push(e.text)
    } else if (e.block >= 0 && e.block < content.length) content[e.block] = e.content
  }
  for (const t of appended) content.push({ type: "text", text: t })
  return { ...message, content }
}

/** How the ids of the messages compaction makes start: its summaries and its summarizing request. */
const SUMMARY_ID = "summary-"

/** The id of the synthetic user message a compaction puts in place of its range. */
export const summaryMessageId = (e: CompactionEdit): string => `${SUMMARY_ID}${e.ts}-${e.from}`

/** Whether an id is one compaction made (a summary, or the summarizing request), not a history message's. */
export const isSummaryId = (id: string): boolean => id.startsWith(SUMMARY_ID)

/** The text of a compaction summary message. */
export function summaryText(summary: string): string {
  return `${wrapTag(TAG.conversationSummary, summary)}\n\n${CONTINUATION_PROMPT}`
}

/**
 * Makes tool calls and results pair up: a tool_use with no tool_result anywhere in the view (except in
 * the last message, whose calls may still be pending) and a tool_result with no tool_use become text.
 * Returns the same message objects where nothing changed.
 */
export function repairPairs(messages: readonly Message[]): Message[] {
  const uses = new Set<string>()
  const results = new Set<string>()
  for (const m of messages) {
    for (const b of m.content) {
      if (b.type === "tool_use") uses.add(b.id)
      else if (b.type === "tool_result") results.add(b.toolUseId)
    }
  }
  const last = messages.length - 1
  return messages.map((m, i) => {
    let changed = false
    const content = m.content.map((b): Block => {
      if (b.type === "tool_use" && !results.has(b.id) && i !== last) {
        changed = true
        return orphanUse(b.name, b.input)
      }
      if (b.type === "tool_result" && !uses.has(b.toolUseId)) {
        changed = true
        return orphanResult(b.content)
      }
      return b
    })
    return changed ? { ...m, content } : m
  })
}

/**
 * Repairs the seam between two messages that a hidden range made neighbours: calls in `before` whose
 * results are not in `after`, and results in `after` whose calls are not in `before`, become text.
 */
export function repairSeam(before: Message, after: Message): [Message, Message] {
  const results = new Set<string>()
  for (const b of after.content) if (b.type === "tool_result") results.add(b.toolUseId)
  const uses = new Set<string>()
  for (const b of before.content) if (b.type === "tool_use") uses.add(b.id)
  let changedBefore = false
  const first = before.content.map((b): Block => {
    if (b.type !== "tool_use" || results.has(b.id)) return b
    changedBefore = true
    return orphanUse(b.name, b.input)
  })
  let changedAfter = false
  const second = after.content.map((b): Block => {
    if (b.type !== "tool_result" || uses.has(b.toolUseId)) return b
    changedAfter = true
    return orphanResult(b.content)
  })
  return [changedBefore ? { ...before, content: first } : before, changedAfter ? { ...after, content: second } : after]
}

function orphanUse(name: string, input: unknown): TextBlock {
  return { type: "text", text: `[earlier tool call ${name} ${JSON.stringify(input ?? {})}; its result was removed]` }
}

function orphanResult(content: string | Block[]): TextBlock {
  const text = textOf({ content }, { separator: "\n", image: "" })
  return { type: "text", text: `[result of an earlier tool call whose request was removed]\n${text}` }
}
