import { dedupNotice } from "../notices.js"
import type { BlockEdit } from "./edits.js"
import { type FileElement, fileElements, replaceFileElements } from "./file-elements.js"
import { type Block, type Message, type TextBlock, textOf } from "./message.js"

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
  /** What earlier calls learned (see `DedupMemo`): only what changed since is walked and scanned. */
  memo?: DedupMemo
}

/** The file copies found in one block's text (not a read tool's result, which is found by its call). */
interface BlockScan {
  cline?: string
  mentions: string[]
  finals: string[]
  /** The paths of the mentions and final contents not all holding their notice yet. */
  pending: ReadonlySet<string>
}

/** A tool call as dedup sees it: the tool, and the path and range it asked for (a read of a path, if read). */
interface Call {
  name: string
  /** The `path` input, when it is a string. */
  path?: string
  range?: string
}

/** One block of a message as dedup reads it, in block order. */
type Step =
  | { kind: "call"; id: string; call: Call }
  | { kind: "result"; block: number; toolUseId: string; isError: boolean }
  | { kind: "text"; block: number }

/** The blocks of a message that dedup reads (calls, results and texts), in order. */
function stepsOf(message: Message): Step[] {
  const steps: Step[] = []
  message.content.forEach((b, block) => {
    if (b.type === "tool_use") {
      const input = (b.input ?? {}) as Record<string, unknown>
      const path = typeof input.path === "string" ? input.path : undefined
      steps.push({
        kind: "call",
        id: b.id,
        call: { name: b.name, ...(path === undefined ? {} : { path, range: rangeOf(input) }) },
      })
    } else if (b.type === "tool_result")
      steps.push({ kind: "result", block, toolUseId: b.toolUseId, isError: Boolean(b.isError) })
    else if (b.type === "text") steps.push({ kind: "text", block })
  })
  return steps
}

/**
 * The walk of one view: every copy found in it, in order, and what is needed to continue it over a view
 * that extends it. `ends[i]` is how many copies the messages before and at position i hold; `calls` are the
 * tool calls in order (a result is matched to the last call with its id before it), and `open` maps each id
 * to its last call at the end of the walk.
 */
interface Walk {
  readTools: ReadonlySet<string>
  messages: Message[]
  found: Occurrence[]
  ends: number[]
  calls: { message: number; id: string; call: Call }[]
  open: Map<string, Call>
  /** The newest whole copy of each path so far (for `prepare`). */
  newest: Map<string, Occurrence>
}

function newWalk(readTools: ReadonlySet<string>): Walk {
  return { readTools, messages: [], found: [], ends: [], calls: [], open: new Map(), newest: new Map() }
}

/**
 * What dedup learned in earlier calls, kept by a ContextManager across turns. Messages and blocks are
 * immutable values, so a message's steps, a block's scan and a stale block's replacement are kept by
 * identity; the walk of the last view is kept too, so a view that starts with the same messages is walked
 * only from where it differs (`follow`).
 */
export class DedupMemo {
  readonly scans = new WeakMap<Block, BlockScan>()
  readonly replacements = new WeakMap<Block, Replacement[]>()
  readonly steps = new WeakMap<Message, Step[]>()
  #walk: Walk | undefined
  /** Replacements made ahead by the walk since the last `takePrepared`. */
  #prepared: Block[] = []

  /**
   * Brings the walk up to `view`: the messages it shares with the last view walked (the same objects in the
   * same places, from the start) keep their copies, messages edited in place are patched (`patch`), and only
   * the rest is walked. A ContextManager calls this every turn, so a turn over the budget finds its view
   * walked already, and the replacements of the copies that went stale made (`takePrepared`).
   */
  follow(view: readonly Message[], readTools: readonly string[] = DEFAULT_READ_TOOLS): Occurrence[] {
    let walk = this.#walk
    if (!walk || !sameTools(walk.readTools, readTools)) walk = newWalk(new Set(readTools))
    this.#walk = walk
    const known = walk.messages
    const shared = Math.min(known.length, view.length)
    let first = 0
    while (first < shared && known[first] === view[first]) first++
    if (first < known.length) {
      const valid = patch(walk, view, first, shared, this)
      if (valid < known.length) rewind(walk, valid)
    }
    continueWalk(walk, view, this)
    return walk.found
  }

  /**
   * The replacement blocks made since the last call, ahead of the turn that needs them: when a whole copy of
   * a file arrives, the copy it makes stale is replaced at once (the same block `dedupFileReads` then finds
   * remembered), so a host can count the replacement while the turn is light.
   */
  takePrepared(): Block[] {
    const prepared = this.#prepared
    this.#prepared = []
    return prepared
  }

  /** Replaces a stale copy ahead of the turn over the budget (see `takePrepared`). */
  prepare(block: Block, o: Occurrence): void {
    o.replaced ??= isReplaced(block, o, this)
    if (o.replaced) return
    const made = memoReplacement(block, [o.path], o.where, this)
    if (made) this.#prepared.push(made)
  }

  /** The steps of a message, made once. */
  stepsOf(message: Message): Step[] {
    let steps = this.steps.get(message)
    if (!steps) {
      steps = stepsOf(message)
      this.steps.set(message, steps)
    }
    return steps
  }
}

/**
 * Patches a walk for messages edited in place (a block replaced, a text appended: dedup, masking, pruning,
 * notices), from position `from` up to `shared`: such a message has the same calls and results as the one
 * it replaces, so the copies around it do not change and its own copies are found again, each result matched
 * as before. Returns how many messages from the start the walk now holds rightly; the caller walks the rest.
 */
function patch(walk: Walk, view: readonly Message[], from: number, shared: number, memo: DedupMemo): number {
  const known = walk.messages
  const redone = new Map<number, Occurrence[]>()
  let valid = shared
  for (let mi = from; mi < shared; mi++) {
    if (view[mi] === known[mi]) continue
    const before = memo.steps.get(known[mi]!)
    const steps = memo.stepsOf(view[mi]!)
    if (!before || !sameCalls(before, steps)) {
      valid = mi
      break
    }
    // The result copies of the old message, in the order of its results: each result is matched as before.
    const start = mi > 0 ? walk.ends[mi - 1]! : 0
    const old = walk.found.slice(start, walk.ends[mi]!)
    const matched: (Occurrence | undefined)[] = []
    for (const step of before)
      if (step.kind === "result") matched.push(old.find((o) => o.where === "result" && o.block === step.block))
    let r = 0
    const copies: Occurrence[] = []
    messageCopies(view[mi]!, mi, steps, memo, copies, () => {
      const was = matched[r++]
      return was && { path: was.path, range: was.range }
    })
    redone.set(mi, copies)
    known[mi] = view[mi]!
  }
  // `newest` may still hold a patched message's old copy: its place (message, block) is the same, and what
  // `prepare` learns from it only saves or repeats work ahead; the edits come from `found`.
  if (redone.size > 0) {
    // The copies again in one pass, each patched message's in place of its old ones.
    const found: Occurrence[] = []
    let start = 0
    for (let mi = 0; mi < known.length; mi++) {
      const end = walk.ends[mi]!
      const copies = redone.get(mi)
      if (copies) found.push(...copies)
      else for (let i = start; i < end; i++) found.push(walk.found[i]!)
      walk.ends[mi] = found.length
      start = end
    }
    walk.found = found
  }
  return valid === shared && view.length >= known.length ? known.length : valid
}

/** Whether two step lists have the same calls and results (ids, tools, paths, errors) in the same order. */
function sameCalls(a: readonly Step[], b: readonly Step[]): boolean {
  let i = 0
  let j = 0
  for (;;) {
    while (i < a.length && a[i]!.kind === "text") i++
    while (j < b.length && b[j]!.kind === "text") j++
    if (i === a.length || j === b.length) return i === a.length && j === b.length
    const x = a[i++]!
    const y = b[j++]!
    if (x.kind === "call" && y.kind === "call") {
      if (x.id !== y.id || x.call.name !== y.call.name || x.call.path !== y.call.path || x.call.range !== y.call.range)
        return false
    } else if (x.kind === "result" && y.kind === "result") {
      if (x.toolUseId !== y.toolUseId || x.isError !== y.isError) return false
    } else return false
  }
}

/** Cuts a walk back to its first `length` messages. */
function rewind(walk: Walk, length: number): void {
  walk.messages.length = length
  walk.found.length = length > 0 ? walk.ends[length - 1]! : 0
  walk.ends.length = length
  let calls = walk.calls.length
  while (calls > 0 && walk.calls[calls - 1]!.message >= length) calls--
  walk.calls.length = calls
  walk.open = new Map()
  for (const { id, call } of walk.calls) walk.open.set(id, call)
  walk.newest = new Map()
  for (const o of walk.found) if (o.range === undefined) walk.newest.set(o.path, o)
}

function sameTools(known: ReadonlySet<string>, tools: readonly string[]): boolean {
  return tools.length === known.size && tools.every((t) => known.has(t))
}

/** Walks the messages of `view` after those already walked, appending their copies. */
function continueWalk(walk: Walk, view: readonly Message[], memo: DedupMemo | undefined): void {
  const { open, readTools } = walk
  for (let mi = walk.messages.length; mi < view.length; mi++) {
    const message = view[mi]!
    const steps = memo ? memo.stepsOf(message) : stepsOf(message)
    messageCopies(
      message,
      mi,
      steps,
      memo,
      walk.found,
      (step) => {
        // Only a read call with a path makes its result a copy: a result of any other call is read as text.
        const call = open.get(step.toolUseId)
        return call?.path !== undefined && readTools.has(call.name) && !step.isError
          ? { path: call.path, range: call.range }
          : undefined
      },
      (step) => {
        open.set(step.id, step.call)
        walk.calls.push({ message: mi, id: step.id, call: step.call })
      },
    )
    if (memo) {
      // A whole copy makes the newest earlier one (in another block) stale: its replacement is made now.
      for (let i = walk.ends.at(-1) ?? 0; i < walk.found.length; i++) {
        const o = walk.found[i]!
        if (o.range !== undefined) continue
        const before = walk.newest.get(o.path)
        if (before && !sameBlock(before, o)) memo.prepare(view[before.message]!.content[before.block]!, before)
        walk.newest.set(o.path, o)
      }
    }
    walk.messages.push(message)
    walk.ends.push(walk.found.length)
  }
}

/**
 * The copies in one message, appended to `out` in block order: a result is a copy when `read` gives the read
 * call it answers; other results and texts are scanned. `call` is told of each call as it comes.
 */
function messageCopies(
  message: Message,
  mi: number,
  steps: readonly Step[],
  memo: DedupMemo | undefined,
  out: Occurrence[],
  read: (step: Extract<Step, { kind: "result" }>) => { path: string; range?: string | undefined } | undefined,
  call?: (step: Extract<Step, { kind: "call" }>) => void,
): void {
  for (const step of steps) {
    if (step.kind === "call") {
      call?.(step)
      continue
    }
    if (step.kind === "result") {
      const copy = read(step)
      if (copy) {
        out.push(occurrence(mi, step.block, copy.path, "result", copy.range))
        continue
      }
    }
    const scan = scanOf(message.content[step.block]!, memo)
    if (scan.cline !== undefined) {
      out.push(occurrence(mi, step.block, scan.cline, "cline"))
      continue
    }
    for (const path of scan.mentions) out.push(occurrence(mi, step.block, path, "mention"))
    for (const path of scan.finals) out.push(occurrence(mi, step.block, path, "final"))
  }
}

function occurrence(
  message: number,
  block: number,
  path: string,
  where: Occurrence["where"],
  range?: string,
): Occurrence {
  return range === undefined ? { message, block, path, where } : { message, block, path, where, range }
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
  /** Whether the copy is already the notice (found out when it first goes stale). */
  replaced?: boolean
}

export { dedupNotice } from "../notices.js"

const CLINE_READ = /^\[read_file for '([^']+)'\] Result:/

function rangeOf(input: Record<string, unknown>): string | undefined {
  const start = input.start_line
  const end = input.end_line
  return start === undefined && end === undefined ? undefined : `${start ?? ""}-${end ?? ""}`
}

/** The text in which a block's copies are found: a text block's, a tool result's parts joined; else none. */
function copyText(b: Block): string | undefined {
  if (b.type === "tool_result") return textOf(b, { separator: "\n", image: "" })
  return b.type === "text" ? b.text : undefined
}

/** The file copies in a block's text, found in one pass over its elements. */
function scanBlock(b: Block): BlockScan {
  const text = copyText(b)
  if (text === undefined) return NOTHING
  const cline = CLINE_READ.exec(text)
  if (cline) return { cline: cline[1]!, mentions: [], finals: [], pending: NONE }
  const pending = new Set<string>()
  const paths = (tag: string) =>
    Array.from(fileElements(text, tag), ({ path, inner }) => {
      if (inner !== dedupNotice(path)) pending.add(path)
      return path
    })
  return { mentions: paths("file_content"), finals: paths("final_file_content"), pending }
}

const NONE: ReadonlySet<string> = new Set()
const NOTHING: BlockScan = { mentions: [], finals: [], pending: NONE }

/** A block's scan, remembered by the memo. */
function scanOf(b: Block, memo: DedupMemo | undefined): BlockScan {
  let scan = memo?.scans.get(b)
  if (!scan) {
    scan = scanBlock(b)
    memo?.scans.set(b, scan)
  }
  return scan
}

/** Finds every copy of a file's content in the view, in order. */
function occurrences(view: readonly Message[], readTools: readonly string[], memo?: DedupMemo): Occurrence[] {
  if (memo) return memo.follow(view, readTools)
  const walk = newWalk(new Set(readTools))
  continueWalk(walk, view, undefined)
  return walk.found
}

/**
 * Whether a copy is the notice already, so that replacing it changes nothing: a result or Cline-style read
 * whose whole text is its notice, or a mention or final content whose elements for that path all hold it.
 */
function isReplaced(block: Block, o: Occurrence, memo: DedupMemo | undefined): boolean {
  if (o.where === "result" || o.where === "cline") {
    const notice = noticeFor(o.where, o.path)
    if (block.type === "tool_result") return block.content === notice
    return block.type !== "text" || block.text === notice
  }
  return !scanOf(block, memo).pending.has(o.path)
}

/** What a stale read's result (or a Cline-style read) becomes. */
function noticeFor(where: "result" | "cline", path: string): string {
  return where === "cline" ? `[read_file for '${path}'] Result:\n${dedupNotice(path)}` : dedupNotice(path)
}

/**
 * Replaces the content of the file elements for `paths` inside a text with the notice. `plain` is false when
 * a replaced element's path or content holds a "<", so that the new text may hold other elements than the old.
 */
function replaceElements(text: string, paths: ReadonlySet<string>): { text: string; plain: boolean } {
  let plain = true
  const swap =
    (tag: string) =>
    ({ path, inner }: FileElement): string | undefined => {
      if (!paths.has(path) || inner === dedupNotice(path)) return undefined
      if (path.includes("<") || inner.includes("<")) plain = false
      return `<${tag} path="${path}">${dedupNotice(path)}</${tag}>`
    }
  const out = replaceFileElements(
    replaceFileElements(text, "file_content", swap("file_content")),
    "final_file_content",
    swap("final_file_content"),
  )
  return { text: out, plain }
}

/** Makes the edits that replace older copies of files with a notice; already-replaced copies are skipped. */
export function dedupFileReads(view: readonly Message[], options: DedupOptions): BlockEdit[] {
  const { memo } = options
  const found = occurrences(view, options.readTools ?? DEFAULT_READ_TOOLS, memo)
  // Walk from the newest copy back: a copy is stale once a later whole copy (or the same range) was seen.
  // Path → the block holding the newest whole copy (copies inside that same block are left alone).
  // A block's copies are next to each other in `found`, so the stale paths of one block are gathered in
  // one run of the walk, and the blocks come newest first. A block whose stale copies are all the notice
  // already needs no replacement (most stale copies, turn after turn).
  const wholeSeen = new Map<string, Occurrence>()
  const rangeSeen = new Set<string>()
  const edits: BlockEdit[] = []
  let current: { at: Occurrence; paths: string[]; open: boolean } | undefined
  const flush = () => {
    if (!current?.open) return
    const { at, paths } = current
    const message = view[at.message]!
    const content = memoReplacement(message.content[at.block]!, paths, at.where, memo)
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
    o.replaced ??= isReplaced(view[o.message]!.content[o.block]!, o, memo)
    if (current && sameBlock(current.at, o)) {
      if (!current.paths.includes(o.path)) current.paths.push(o.path)
      if (!o.replaced) current.open = true
    } else {
      flush()
      current = { at: o, paths: [o.path], open: !o.replaced }
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

/**
 * `replacement`, remembered per block, paths (in the order found) and kind of copy. What the memo knows of
 * the stale block is carried over to its replacement when the replacement cannot differ in it: the copies
 * its text holds (so the next turn's walk need not scan it) and the paths still to be replaced.
 */
function memoReplacement(
  block: Block,
  paths: readonly string[],
  where: Occurrence["where"],
  memo: DedupMemo | undefined,
): Block | undefined {
  if (!memo) return replacement(block, new Set(paths), where).made
  let known = memo.replacements.get(block)
  const hit = known?.find((r) => r.where === where && sameList(r.paths, paths))
  if (hit) return hit.made
  const { made, plain } = replacement(block, new Set(paths), where)
  if (!known) {
    known = []
    memo.replacements.set(block, known)
  }
  known.push({ where, paths: paths.slice(), made })
  if (made && plain) {
    const scan = memo.scans.get(block)
    // The replaced paths hold their notice now; nothing else changed.
    if (scan) memo.scans.set(made, { ...scan, pending: new Set([...scan.pending].filter((p) => !paths.includes(p))) })
  }
  return made
}

/**
 * The block that replaces a stale copy (undefined when it is already replaced), and whether the copies its
 * text holds are known without a scan (`plain`: see `replaceElements`; a Cline-style read stays one).
 */
function replacement(
  block: Block,
  paths: ReadonlySet<string>,
  where: Occurrence["where"],
): { made: Block | undefined; plain: boolean } {
  const path = [...paths][0]!
  if (where === "result" || where === "cline") {
    const notice = noticeFor(where, path)
    // A Cline-style read stays one (its path holds no "'"); a read's result needs no scan (its call names the path).
    const plain = where === "cline"
    if (block.type === "tool_result")
      return { made: block.content === notice ? undefined : { ...block, content: notice }, plain }
    if (block.type === "text")
      return { made: block.text === notice ? undefined : ({ type: "text", text: notice } as TextBlock), plain }
    return { made: undefined, plain }
  }
  if (block.type === "text") {
    const { text, plain } = replaceElements(block.text, paths)
    return { made: text === block.text ? undefined : { type: "text", text }, plain }
  }
  if (block.type === "tool_result") {
    const before = copyText(block)!
    const { text, plain } = replaceElements(before, paths)
    return { made: text === before ? undefined : { ...block, content: text }, plain }
  }
  return { made: undefined, plain: false }
}
