import { readFile } from "node:fs/promises"
import { writeFileAtomic } from "../atomic-write.js"
import { PromptlineError } from "../errors.js"
import { parseJsonDocument } from "../json.js"
import { migrateChangeLog } from "./change-log-migrate.js"
import { checkEdits } from "./edit-check.js"
import {
  applyMessageEdits,
  type CompactionEdit,
  type Edit,
  type EditIndex,
  type HiddenRange,
  indexEdits,
  isSummaryId,
  repairSeam,
  summaryMessageId,
  summaryText,
  type TruncationEdit,
} from "./edits.js"
import type { Message } from "./message.js"

/** The current schema version of a persisted change log. */
export const CHANGE_LOG_SCHEMA = 1

/** A persisted change log (schema 1). */
export interface ChangeLogFile {
  schema: 1
  edits: Edit[]
}

/** The change log could not be read, is not a change log, or does not fit the history it is loaded for. */
export class ChangeLogError extends PromptlineError<"change-log-invalid" | "change-log-mismatch"> {
  constructor(message: string, options?: { cause?: unknown; code?: "change-log-invalid" | "change-log-mismatch" }) {
    super(options?.code ?? "change-log-invalid", message, options?.cause === undefined ? {} : { cause: options.cause })
  }
}

/**
 * The edits made to a conversation's view, in timestamp order. The history itself is never changed:
 * `view(history)` applies the edits; `undo(ts)` drops every edit made after `ts`, which restores exactly
 * the view of that time. Persisted as versioned JSON, written atomically.
 */
export class ChangeLog {
  private list: Edit[]
  private index: EditIndex | undefined
  /** Rendered edited messages by id, reused while their edits do not change (stable objects for caches). */
  private readonly rendered = new Map<string, { source: Message; edits: number; message: Message }>()
  /** Repaired seams by the ids of their two messages, reused while both sides are the same objects. */
  private readonly seams = new Map<string, { a: Message; b: Message; out: [Message, Message] }>()
  /**
   * Positions of the ids of the last history seen, extended while the history grows by appending. `seen` is
   * our own copy of that history (a caller may change its array in place).
   */
  private positions: { seen: Message[]; pos: Map<string, number> } | undefined
  /**
   * The last view made, patched in place of a rebuild while no hidden range changes and the history only
   * grows: `sources` are the messages before their edits (history messages and summaries), `at` the history
   * position of each (a summary: the start of its range), `rendered` the same with their edits, `seams` the
   * positions whose message follows a hidden range, `out` the view.
   */
  private lastView:
    | {
        seen: Message[]
        sources: Message[]
        at: number[]
        rendered: Message[]
        seams: number[]
        out: Message[]
        extendable: boolean
      }
    | undefined
  /** Since the last view: the ids of messages given block or append edits, or `rebuild` after any other change. */
  private changed: Set<string> | "rebuild" = "rebuild"
  /** Since the last view: truncations recorded in order, which the view may hide without a rebuild (`hideRun`). */
  private truncated: TruncationEdit[] = []

  constructor(edits: readonly Edit[] = []) {
    this.list = [...edits].sort((a, b) => a.ts - b.ts)
  }

  /** All edits, oldest first. */
  get edits(): readonly Edit[] {
    return this.list
  }

  /** Timestamp of the newest edit, or undefined when there is none. */
  get head(): number | undefined {
    return this.list.at(-1)?.ts
  }

  /**
   * Records edits (kept in timestamp order; equal timestamps keep their insertion order). Edits that come
   * after every recorded one (the usual case) extend the index and mark their messages for the next view;
   * others are sorted in and the index and view are rebuilt.
   */
  add(edits: readonly Edit[]): void {
    if (edits.length === 0) return
    let inOrder = this.list.length === 0 || edits[0]!.ts >= this.list.at(-1)!.ts
    for (let i = 1; inOrder && i < edits.length; i++) inOrder = edits[i]!.ts >= edits[i - 1]!.ts
    if (!inOrder) {
      this.list = [...this.list, ...edits].sort((a, b) => a.ts - b.ts)
      this.index = undefined
      this.changed = "rebuild"
      return
    }
    this.list = this.list.concat(edits)
    for (const e of edits) {
      if (e.kind === "compaction") this.changed = "rebuild"
      else if (this.changed === "rebuild") continue
      else if (e.kind === "truncation") this.truncated.push(e)
      else this.changed.add(e.messageId)
    }
    // The same index `indexEdits` would build from the longer list: each edit pushed in order.
    if (this.index) appendToIndex(this.index, edits)
  }

  /** Drops every edit made after `toTimestamp`; returns the dropped edits. */
  undo(toTimestamp: number): Edit[] {
    const kept = this.list.filter((e) => e.ts <= toTimestamp)
    const dropped = this.list.filter((e) => e.ts > toTimestamp)
    if (dropped.length > 0) {
      this.list = kept
      this.index = undefined
      this.rendered.clear()
      this.seams.clear()
      this.changed = "rebuild"
    }
    return dropped
  }

  /** The hidden range that starts earliest and reaches furthest, for explanations. */
  deletedRange(history: readonly Message[]): HiddenRange | undefined {
    const hidden = this.hiddenPositions(history)
    if (hidden.length === 0) return undefined
    const first = hidden[0]!
    const last = hidden.at(-1)!
    return { from: history[first.from]!.id, to: history[last.to]!.id }
  }

  private edits_(): EditIndex {
    this.index ??= indexEdits(this.list)
    return this.index
  }

  /** Hidden position ranges (inclusive), sorted, with the compaction that replaced each, if any. */
  private hiddenPositions(history: readonly Message[]): { from: number; to: number; compaction?: CompactionEdit }[] {
    const { ranges } = this.edits_()
    if (ranges.length === 0) return []
    const pos = this.positionsOf(history)
    const out: { from: number; to: number; compaction?: CompactionEdit }[] = []
    for (const r of ranges) {
      const from = pos.get(r.from)
      const to = pos.get(r.to)
      if (from === undefined || to === undefined || to < from) continue
      out.push(r.kind === "compaction" ? { from, to, compaction: r } : { from, to })
    }
    return out.sort((a, b) => a.from - b.from || b.to - a.to)
  }

  /** The messages to send: the history with hidden ranges removed, edits applied, tool pairs repaired. */
  view(history: readonly Message[]): Message[] {
    const index = this.edits_()
    const grown = this.extendView(history, index)
    if (grown) return grown
    this.changed = new Set()
    this.truncated = []
    const { byMessage } = index
    const hidden = this.hiddenPositions(history)
    const hiddenAt = new Uint8Array(history.length)
    const summaries = new Map<number, Message>()
    for (const h of hidden) {
      for (let i = h.from; i <= h.to; i++) hiddenAt[i] = 1
      if (h.compaction && !summaries.has(h.from)) {
        const c = h.compaction
        summaries.set(h.from, {
          id: summaryMessageId(c),
          role: "user",
          ts: c.ts,
          content: [{ type: "text", text: summaryText(c.summary) }],
        })
      }
    }
    const sources: Message[] = []
    const at: number[] = []
    const seams: number[] = []
    for (let i = 0; i < history.length; i++) {
      const summary = summaries.get(i)
      if (summary) {
        if (sources.length > 0) seams.push(sources.length)
        sources.push(summary)
        at.push(i)
      }
      if (hiddenAt[i]) continue
      if (i > 0 && hiddenAt[i - 1] && sources.length > 0 && !summaries.has(i)) seams.push(sources.length)
      sources.push(history[i]!)
      at.push(i)
    }
    const rendered = sources.map((m) => this.renderOne(m, byMessage.get(m.id)))
    const out = this.repaired(rendered, seams)
    this.lastView = {
      seen: history.slice(),
      sources,
      at,
      rendered,
      seams,
      out,
      extendable: this.extendable(history, hidden, index),
    }
    return out.slice()
  }

  /** The rendered messages with the seams after hidden ranges repaired, in order. */
  private repaired(rendered: readonly Message[], seams: readonly number[]): Message[] {
    const out = rendered.slice()
    for (const i of seams) {
      const [a, b] = this.repair(out[i - 1]!, out[i]!)
      out[i - 1] = a
      out[i] = b
    }
    return out
  }

  /**
   * The view of a history that extends the last one viewed (the same message objects first, then new
   * ones) while no hidden range changed: the last view with the messages given new edits rendered again
   * (and the seams repaired again), plus the new messages, each with its own edits. Undefined when a
   * rebuild is needed: a range or the order of the edits changed, the history is not an extension, or a
   * new message could change a hidden range (its id names a range's end, or the last range ends the old history).
   */
  private extendView(history: readonly Message[], index: EditIndex): Message[] | undefined {
    const last = this.lastView
    const changed = this.changed
    if (!last || changed === "rebuild" || !last.extendable || !startsWith(history, last.seen)) return undefined
    const { seen, sources, rendered } = last
    const ends = rangeEnds(index)
    for (let i = seen.length; i < history.length; i++) if (ends.has(history[i]!.id)) return undefined
    const truncated = this.truncated
    for (const range of truncated) if (!this.hideRun(last, range)) return undefined
    if (changed.size > 0) {
      for (const i of this.sourcesOf(last, changed))
        rendered[i] = this.renderOne(sources[i]!, index.byMessage.get(sources[i]!.id))
      this.changed = new Set()
    }
    if (changed.size > 0 || truncated.length > 0) last.out = this.repaired(rendered, last.seams)
    this.truncated = []
    for (let i = seen.length; i < history.length; i++) {
      const m = history[i]!
      const r = this.renderOne(m, index.byMessage.get(m.id))
      seen.push(m)
      sources.push(m)
      last.at.push(i)
      rendered.push(r)
      last.out.push(r)
    }
    return last.out.slice()
  }

  /**
   * Hides a new truncation's range in the last view (of the history seen then) when that range is a run of
   * messages all visible there, side by side, ending before the last message: the run leaves the view and the
   * message after it follows a hidden range (a seam), as a rebuild would make it. False, with the view left
   * as it was, when the range is anything else (not found whole, overlapping a hidden range or a summary,
   * reaching the last message); the caller then rebuilds.
   */
  private hideRun(last: NonNullable<typeof this.lastView>, range: TruncationEdit): boolean {
    const { seen, sources, rendered } = last
    const pos = this.positionsOf(seen)
    const from = pos.get(range.from)
    const to = pos.get(range.to)
    if (from === undefined || to === undefined || to < from || to >= seen.length - 1) return false
    // Sources are in history order, each at or before its history position.
    let start = Math.min(from, sources.length - 1)
    while (start >= 0 && sources[start] !== seen[from]) start--
    const length = to - from + 1
    if (start < 0 || start + length > sources.length) return false
    for (let k = 1; k < length; k++) if (sources[start + k] !== seen[from + k]) return false
    sources.splice(start, length)
    last.at.splice(start, length)
    rendered.splice(start, length)
    const seams = last.seams.filter((j) => j < start)
    if (start > 0 && start < sources.length) seams.push(start)
    for (const j of last.seams) if (j >= start + length && j - length > start) seams.push(j - length)
    last.seams = seams
    return true
  }

  /**
   * The positions in the last view's sources of the messages with the given ids. While every id of the
   * history is its own and names a history message (not a summary), each is found by its history position
   * (a binary search in `at`; a hidden one is in no source) instead of comparing the id of every source.
   */
  private sourcesOf(last: NonNullable<typeof this.lastView>, ids: ReadonlySet<string>): number[] {
    const { seen, sources, at } = last
    const pos = this.positionsOf(seen)
    const direct = pos.size === seen.length && [...ids].every((id) => pos.has(id) && !isSummaryId(id))
    if (!direct) {
      const all: number[] = []
      for (let i = 0; i < sources.length; i++) if (ids.has(sources[i]!.id)) all.push(i)
      return all
    }
    const found: number[] = []
    for (const id of ids) {
      const p = pos.get(id)!
      let lo = 0
      let hi = at.length
      while (lo < hi) {
        const mid = (lo + hi) >>> 1
        if (at[mid]! < p) lo = mid + 1
        else hi = mid
      }
      // A summary has the position of the first message of its range, which is then hidden.
      if (sources[lo] === seen[p]) found.push(lo)
    }
    return found
  }

  /** Whether a view can be extended by appending: every range found whole, none ending at the last message. */
  private extendable(history: readonly Message[], hidden: readonly { to: number }[], index: EditIndex): boolean {
    if (hidden.length !== index.ranges.length) return false
    return !hidden.some((h) => h.to === history.length - 1)
  }

  /** Id → position in a history (the last position of a repeated id), extended while the history grows. */
  private positionsOf(history: readonly Message[]): Map<string, number> {
    const known = this.positions
    if (known && startsWith(history, known.seen)) {
      for (let i = known.seen.length; i < history.length; i++) {
        known.seen.push(history[i]!)
        known.pos.set(history[i]!.id, i)
      }
      return known.pos
    }
    const pos = new Map<string, number>()
    for (let i = 0; i < history.length; i++) pos.set(history[i]!.id, i)
    this.positions = { seen: history.slice(), pos }
    return pos
  }

  private repair(a: Message, b: Message): [Message, Message] {
    const key = `${a.id}\u0000${b.id}`
    const memo = this.seams.get(key)
    if (memo && memo.a === a && memo.b === b) return memo.out
    const out = repairSeam(a, b)
    this.seams.set(key, { a, b, out })
    return out
  }

  private renderOne(m: Message, edits: (typeof this.list)[number][] | undefined): Message {
    if (!edits || edits.length === 0) return m
    const memo = this.rendered.get(m.id)
    if (memo && memo.source === m && memo.edits === edits.length) return memo.message
    const message = applyMessageEdits(m, edits as Parameters<typeof applyMessageEdits>[1])
    this.rendered.set(m.id, { source: m, edits: edits.length, message })
    return message
  }

  /** The persisted form. */
  toJSON(): ChangeLogFile {
    return { schema: CHANGE_LOG_SCHEMA, edits: this.list }
  }

  /**
   * Reads a persisted change log of any known schema; older schemas need the history to migrate. Given the
   * history, the edits are checked against it (edit-check.ts) and a log that does not fit is refused with a
   * `change-log-mismatch` error naming each unsound edit, instead of hiding the task or orphaning tool calls.
   */
  static fromJSON(data: unknown, history?: readonly Message[]): ChangeLog {
    const edits = migrateChangeLog(data, history)
    if (history) {
      const problems = checkEdits(edits, history)
      if (problems.length > 0)
        throw new ChangeLogError(`the change log does not fit this history: ${problems.join("; ")}`, {
          code: "change-log-mismatch",
        })
    }
    return new ChangeLog(edits)
  }

  /** Writes the change log atomically (temporary file, fsync, rename, fsync of the folder). */
  async save(path: string): Promise<void> {
    await writeFileAtomic(path, `${JSON.stringify(this.toJSON(), null, 1)}\n`)
  }

  /** Loads a change log file (a missing file is an empty log); given the history, it must fit it (see fromJSON). */
  static async load(path: string, history?: readonly Message[]): Promise<ChangeLog> {
    let raw: string
    try {
      raw = await readFile(path, "utf8")
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return new ChangeLog()
      throw new ChangeLogError(`${path}: cannot read the change log`, { cause: error })
    }
    const data = parseJsonDocument(raw, path, "change-log-invalid")
    try {
      return ChangeLog.fromJSON(data, history)
    } catch (error) {
      if (error instanceof PromptlineError)
        throw new ChangeLogError(`${path}: ${error.message}`, {
          cause: error,
          code: error.code === "change-log-mismatch" ? "change-log-mismatch" : "change-log-invalid",
        })
      throw error
    }
  }
}

/** True when `history` starts with the messages of `start`, the same objects in the same places. */
function startsWith(history: readonly Message[], start: readonly Message[]): boolean {
  if (history.length < start.length) return false
  for (let i = 0; i < start.length; i++) if (start[i] !== history[i]) return false
  return true
}

/** Adds edits that follow every indexed one to an index, as `indexEdits` would have placed them. */
function appendToIndex(index: EditIndex, edits: readonly Edit[]): void {
  for (const e of edits) {
    if (e.kind === "truncation" || e.kind === "compaction") index.ranges.push(e)
    else {
      const list = index.byMessage.get(e.messageId)
      if (list) list.push(e)
      else index.byMessage.set(e.messageId, [e])
    }
  }
}

/** The ids that start or end a hidden range. */
function rangeEnds(index: EditIndex): Set<string> {
  const ends = new Set<string>()
  for (const r of index.ranges) {
    ends.add(r.from)
    ends.add(r.to)
  }
  return ends
}
