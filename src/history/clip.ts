import { clipNotice } from "../notices.js"
import type { BlockEdit } from "./edits.js"
import type { ImageBlock, Message, TextBlock, ToolResultBlock } from "./message.js"

/**
 * Cutting a tool result that would not fit the model's context. The head and the tail are kept (a
 * command's first lines say what ran, its last lines how it ended) and a notice in the middle says how
 * much was removed and how to get it: a line range for read_file, a narrower command otherwise.
 */

/** Characters per token assumed when a token budget becomes a character limit (cautious for code). */
export const CHARS_PER_TOKEN = 3

/** The smallest limit a result is ever cut to, so a tiny budget still shows something useful. */
export const MIN_RESULT_CHARS = 2_000

/** How many line breaks `text` holds. */
function newlines(text: string): number {
  let n = 0
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) n++
  return n
}

/** Cuts `text` to about `max` characters around a notice; returns it unchanged when it fits. */
export function clipText(text: string, max: number, tool: string): { text: string; removed: number } {
  if (text.length <= max) return { text, removed: 0 }
  const keep = Math.max(0, max - 400)
  let head = text.slice(0, Math.ceil(keep * 0.6))
  let tail = text.slice(text.length - Math.floor(keep * 0.4))
  // Cut at line ends where there are any, so no line is shown half.
  const headEnd = head.lastIndexOf("\n")
  if (headEnd > head.length / 2) head = head.slice(0, headEnd + 1)
  const tailStart = tail.indexOf("\n")
  if (tailStart >= 0 && tailStart < tail.length / 2) tail = tail.slice(tailStart + 1)
  const middle = text.slice(head.length, text.length - tail.length)
  const firstLine = newlines(head) + 1
  const lines = Math.max(1, newlines(middle) + (middle.endsWith("\n") ? 0 : 1))
  const lastLine = firstLine + lines - 1
  const notice = clipNotice(middle.length, lines, firstLine, lastLine, tool)
  return { text: `${head}${notice}${tail}`, removed: middle.length }
}

/** The text characters of a tool result. */
export function resultChars(result: ToolResultBlock): number {
  if (typeof result.content === "string") return result.content.length
  return result.content.reduce((n, b) => n + (b.type === "text" ? b.text.length : 0), 0)
}

/**
 * A tool result cut to at most about `max` text characters (each text block gets its share), and how
 * many characters were removed; the same block when it fits.
 */
export function clipToolResult(
  result: ToolResultBlock,
  max: number,
  tool: string,
): { block: ToolResultBlock; removed: number } {
  const total = resultChars(result)
  if (total <= max) return { block: result, removed: 0 }
  if (typeof result.content === "string") {
    const clipped = clipText(result.content, max, tool)
    return { block: { ...result, content: clipped.text }, removed: clipped.removed }
  }
  let removed = 0
  const content = result.content.map((b): TextBlock | ImageBlock => {
    if (b.type !== "text") return b
    const clipped = clipText(b.text, Math.floor((max * b.text.length) / total), tool)
    removed += clipped.removed
    return { type: "text", text: clipped.text }
  })
  return { block: { ...result, content }, removed }
}

/**
 * Edits that cut the tool results of a view to share `maxChars` text characters among them, for the
 * results after the first exchange that exceed their share (recorded as `prune` edits, so undo restores
 * them). Tool names come from the matching calls, for the notice's advice.
 */
export function clipEdits(view: readonly Message[], maxChars: number, now: number): BlockEdit[] {
  const names = new Map<string, string>()
  const results: { message: Message; block: number; result: ToolResultBlock }[] = []
  view.forEach((m, mi) => {
    m.content.forEach((b, bi) => {
      if (b.type === "tool_use") names.set(b.id, b.name)
      else if (b.type === "tool_result" && mi >= 2) results.push({ message: m, block: bi, result: b })
    })
  })
  if (results.length === 0) return []
  const share = Math.max(MIN_RESULT_CHARS, Math.floor(maxChars / results.length))
  const edits: BlockEdit[] = []
  for (const r of results) {
    const tool = names.get(r.result.toolUseId) ?? "tool"
    const clipped = clipToolResult(r.result, share, tool)
    if (clipped.removed === 0) continue
    edits.push({
      kind: "prune",
      ts: now,
      messageId: r.message.id,
      block: r.block,
      content: clipped.block,
      subject: tool,
    })
  }
  return edits
}
