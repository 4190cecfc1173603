import { dedupNotice } from "../notices.js"
import type { BlockEdit } from "./edits.js"
import { type FileElement, fileElements, replaceFileElements } from "./file-elements.js"
import { type Block, type Message, type TextBlock, type ToolUseBlock, textOf } from "./message.js"

/**
 * Dedup of repeated file contents. A file's content reaches the conversation as a read tool's result
 * (keyed by the `path` in the matching tool_use input), as a mention in user text
 * (`<file_content path="…">…</file_content>`), as a write or replace result carrying the final content
 * (`<final_file_content path="…">…</final_file_content>`), or as a text result in Cline's form
 * (`[read_file for 'path'] Result:`). The newest copy of each file stays; older copies are replaced
 * by a short notice. A ranged read is superseded only by a later whole copy or the same range.
 */

/** Options of `dedupFileReads`. */
export interface DedupOptions {
  /** Names of tools whose results are file contents, keyed by the `path` input. Default `read_file`. */
  readTools?: readonly string[]
  /** Timestamp of the edits. */
  now: number
  /** Scans and replacements of earlier calls, so a block already seen is not scanned again. */
  memo?: DedupMemo
}

/** The file copies found in one block's text (not a read tool's result, which is found by its call). */
interface BlockScan {
  cline?: string
  mentions: string[]
  finals: string[]
}

/**
 * What dedup learned about blocks in earlier calls: the file copies in each block's text, and each stale
 * block's replacement. Blocks are immutable values, so both are kept by block identity; a ContextManager
 * keeps one, and a turn scans only the blocks it has not seen.
 */
export class DedupMemo {
  readonly scans = new WeakMap<Block, BlockScan>()
  readonly replacements = new WeakMap<Block, Replacement[]>()

  /**
   * Scans the blocks of new messages that dedup would scan (text, and tool results whose call among these
   * messages is not a read of a path), so that a later call over the budget finds them scanned. Pure
   * preparation: a block's scan depends on the block alone.
   */
  prescan(messages: readonly Message[], readTools: readonly string[] = DEFAULT_READ_TOOLS): void {
    const reads = new Set<string>()
    for (const m of messages)
      for (const b of m.content) {
        if (
          b.type === "tool_use" &&
          readTools.includes(b.name) &&
          typeof (b.input as { path?: unknown })?.path === "string"
        )
          reads.add(b.id)
        else if (b.type === "text" || (b.type === "tool_result" && (b.isError || !reads.has(b.toolUseId))))
          if (!this.scans.has(b)) this.scans.set(b, scanBlock(b) ?? NOTHING)
      }
  }
}

const DEFAULT_READ_TOOLS: readonly string[] = ["read_file"]

/** A block's replacement for one kind of copy and its stale paths (in the order found). */
interface Replacement {
  where: Occurrence["where"]
  paths: readonly string[]
  made: Block | undefined
}

/** One copy of a file's content found in the view. */
interface Occurrence {
  message: number
  block: number
  path: string
  /** Undefined for a whole-file copy, `start-end` for a ranged read. */
  range?: string
  where: "result" | "mention" | "final" | "cline"
}

export { dedupNotice } from "../notices.js"

const CLINE_READ = /^\[read_file for '([^']+)'\] Result:/

function rangeOf(input: Record<string, unknown>): string | undefined {
  const start = input.start_line
  const end = input.end_line
  return start === undefined && end === undefined ? undefined : `${start ?? ""}-${end ?? ""}`
}

/** The file copies in a block's text. */
function scanBlock(b: Block): BlockScan | undefined {
  let text: string | undefined
  if (b.type === "tool_result") text = textOf(b, { separator: "\n", image: "" })
  else if (b.type === "text") text = b.text
  if (text === undefined) return undefined
  const cline = CLINE_READ.exec(text)
  if (cline) return { cline: cline[1]!, mentions: [], finals: [] }
  const mentions = [...fileElements(text, "file_content")].map((e) => e.path)
  const finals = [...fileElements(text, "final_file_content")].map((e) => e.path)
  return { mentions, finals }
}

const NOTHING: BlockScan = { mentions: [], finals: [] }

/** Finds every copy of a file's content in the view, in order. */
function occurrences(view: readonly Message[], readTools: ReadonlySet<string>, memo?: DedupMemo): Occurrence[] {
  const calls = new Map<string, ToolUseBlock>()
  const out: Occurrence[] = []
  for (let mi = 0; mi < view.length; mi++) {
    const content = view[mi]!.content
    for (let bi = 0; bi < content.length; bi++) {
      const b = content[bi]!
      if (b.type === "tool_use") {
        // Only read calls are kept: a result whose call is another tool is treated as one with no call.
        if (readTools.has(b.name)) calls.set(b.id, b)
        else calls.delete(b.id)
        continue
      }
      if (b.type === "tool_result") {
        const call = calls.get(b.toolUseId)
        const input = (call?.input ?? {}) as Record<string, unknown>
        const path = input.path
        if (call && readTools.has(call.name) && typeof path === "string" && !b.isError) {
          out.push({ message: mi, block: bi, path, range: rangeOf(input), where: "result" })
          continue
        }
      } else if (b.type !== "text") continue
      let scan = memo?.scans.get(b)
      if (!scan) {
        scan = scanBlock(b) ?? NOTHING
        memo?.scans.set(b, scan)
      }
      if (scan.cline !== undefined) {
        out.push({ message: mi, block: bi, path: scan.cline, where: "cline" })
        continue
      }
      for (const path of scan.mentions) out.push({ message: mi, block: bi, path, where: "mention" })
      for (const path of scan.finals) out.push({ message: mi, block: bi, path, where: "final" })
    }
  }
  return out
}

/** Replaces the content of the file elements for `paths` inside a text with the notice. */
function replaceElements(text: string, paths: ReadonlySet<string>): string {
  const swap =
    (tag: string) =>
    ({ path, inner }: FileElement): string | undefined =>
      paths.has(path) && inner !== dedupNotice(path)
        ? `<${tag} path="${path}">${dedupNotice(path)}</${tag}>`
        : undefined
  return replaceFileElements(
    replaceFileElements(text, "file_content", swap("file_content")),
    "final_file_content",
    swap("final_file_content"),
  )
}

/** Makes the edits that replace older copies of files with a notice; already-replaced copies are skipped. */
export function dedupFileReads(view: readonly Message[], options: DedupOptions): BlockEdit[] {
  const readTools = new Set(options.readTools ?? DEFAULT_READ_TOOLS)
  const found = occurrences(view, readTools, options.memo)
  // Walk from the newest copy back: a copy is stale once a later whole copy (or the same range) was seen.
  // Path → the block holding the newest whole copy (copies inside that same block are left alone).
  // A block's copies are next to each other in `found`, so the stale paths of one block are gathered in
  // one run of the walk, and the blocks come newest first.
  const wholeSeen = new Map<string, Occurrence>()
  const rangeSeen = new Set<string>()
  const edits: BlockEdit[] = []
  let current: { at: Occurrence; paths: string[] } | undefined
  const flush = () => {
    if (!current) return
    const { at, paths } = current
    current = undefined
    const message = view[at.message]!
    const content = memoReplacement(message.content[at.block]!, paths, at.where, options.memo)
    if (!content) return
    const subject = [...paths].sort().join(", ")
    edits.push({ kind: "dedup", ts: options.now, messageId: message.id, block: at.block, content, subject })
  }
  for (let i = found.length - 1; i >= 0; i--) {
    const o = found[i]!
    const rangeKey = o.range === undefined ? undefined : `${o.path}#${o.range}`
    const newer = wholeSeen.get(o.path)
    const superseded =
      (newer !== undefined && !sameBlock(newer, o)) || (rangeKey !== undefined && rangeSeen.has(rangeKey))
    if (rangeKey === undefined && newer === undefined) wholeSeen.set(o.path, o)
    else if (rangeKey !== undefined) rangeSeen.add(rangeKey)
    if (!superseded) continue
    if (current && sameBlock(current.at, o)) {
      if (!current.paths.includes(o.path)) current.paths.push(o.path)
    } else {
      flush()
      current = { at: o, paths: [o.path] }
    }
  }
  flush()
  // Oldest first, as the view reads.
  return edits.reverse()
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

const sameBlock = (a: Occurrence, b: Occurrence): boolean => a.message === b.message && a.block === b.block

/** `replacement`, remembered per block, paths (in the order found) and kind of copy. */
function memoReplacement(
  block: Block,
  paths: readonly string[],
  where: Occurrence["where"],
  memo: DedupMemo | undefined,
): Block | undefined {
  if (!memo) return replacement(block, new Set(paths), where)
  let known = memo.replacements.get(block)
  const hit = known?.find((r) => r.where === where && sameList(r.paths, paths))
  if (hit) return hit.made
  const made = replacement(block, new Set(paths), where)
  if (!known) {
    known = []
    memo.replacements.set(block, known)
  }
  known.push({ where, paths: paths.slice(), made })
  return made
}

/** The block that replaces a stale copy, or undefined when it is already replaced. */
function replacement(block: Block, paths: ReadonlySet<string>, where: Occurrence["where"]): Block | undefined {
  const path = [...paths][0]!
  if (where === "result" || where === "cline") {
    const notice = where === "cline" ? `[read_file for '${path}'] Result:\n${dedupNotice(path)}` : dedupNotice(path)
    if (block.type === "tool_result") {
      if (block.content === notice) return undefined
      return { ...block, content: notice }
    }
    if (block.type === "text") return block.text === notice ? undefined : ({ type: "text", text: notice } as TextBlock)
    return undefined
  }
  if (block.type === "text") {
    const text = replaceElements(block.text, paths)
    return text === block.text ? undefined : { type: "text", text }
  }
  if (block.type === "tool_result") {
    const before = textOf(block, { separator: "\n", image: "" })
    const text = replaceElements(before, paths)
    return text === before ? undefined : { ...block, content: text }
  }
  return undefined
}
