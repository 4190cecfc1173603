import { TAG, TRUNCATION_NOTICE } from "../notices.js"
import { type AppendEdit, isSummaryId, type TruncationEdit } from "./edits.js"
import { namedElements } from "./file-elements.js"
import type { Message, TextBlock } from "./message.js"

/**
 * Truncation of the view. The first user/assistant exchange (the task) is always kept, and so is a
 * compaction summary right after it. A cut removes a run of messages after that head such that roles
 * still alternate at the seam (after a head ending in an assistant message the cut ends on an
 * assistant message). Tool calls cut from their results are repaired when the view is rendered.
 */

/**
 * How much to cut. `auto` (the default, cache-aware) cuts once, deep enough that the rest fills at most
 * `keepFraction` of the budget, so the cached prefix moves rarely. `half` and `quarter` keep about half
 * and a quarter of the messages after the head, `lastTwo` the last two, `none` none (Cline's modes).
 */
export type TruncationStrategy = "auto" | "half" | "quarter" | "lastTwo" | "none"

/** A planned cut: view positions, inclusive. */
export interface Cut {
  start: number
  end: number
}

/** How many messages at the start of the view are never cut: the first exchange, plus a summary. */
export function headLength(view: readonly Message[]): number {
  let head = Math.min(2, view.length)
  if (isSummaryId(view[head]?.id ?? "")) head++
  return head
}

/**
 * True when removing view[start..end] keeps user and assistant turns alternating at the seam (system messages
 * are no turn: the nearest turn on each side is compared) and keeps the last message.
 */
function seamOk(view: readonly Message[], start: number, end: number): boolean {
  if (end >= view.length - 1) return false
  // Each walk passes over a run of system messages only.
  let b = start - 1
  while (b >= 0 && view[b]!.role === "system") b--
  let a = end + 1
  while (a < view.length && view[a]!.role === "system") a++
  return b < 0 || a >= view.length || view[b]!.role !== view[a]!.role
}

/**
 * The cut for a Cline-style strategy: removes a count of messages after the head, then moves the end
 * back until the seam is sound. Undefined when nothing can be cut.
 */
export function plannedCut(view: readonly Message[], strategy: Exclude<TruncationStrategy, "auto">): Cut | undefined {
  const start = headLength(view)
  const rest = view.length - start
  if (rest <= 1) return undefined
  const remove =
    strategy === "half"
      ? Math.floor(rest / 4) * 2
      : strategy === "quarter"
        ? Math.floor((rest * 3) / 4 / 2) * 2
        : strategy === "lastTwo"
          ? Math.max(rest - 2, 0)
          : rest
  for (let end = Math.min(start + remove - 1, view.length - 2); end >= start; end--) {
    if (seamOk(view, start, end)) return { start, end }
  }
  return undefined
}

/**
 * The cache-aware cut: the shortest removal after the head that brings the messages to at most
 * `target` tokens (per-message counts in `tokens`, view order), then moved forward until the seam is
 * sound. Undefined when nothing can be cut.
 */
export function cutToFit(view: readonly Message[], tokens: readonly number[], target: number): Cut | undefined {
  const start = headLength(view)
  if (view.length - start <= 1) return undefined
  let total = 0
  for (const t of tokens) total += t
  let end = start - 1
  while (end < view.length - 2 && total > target) {
    end++
    total -= tokens[end]!
  }
  if (end < start) end = start
  for (let e = end; e <= view.length - 2; e++) if (seamOk(view, start, e)) return { start, end: e }
  for (let e = end - 1; e >= start; e--) if (seamOk(view, start, e)) return { start, end: e }
  return undefined
}

export { TRUNCATION_NOTICE } from "../notices.js"

/**
 * Elements of user text that are project instructions and must survive a cut: the context message's
 * `<project_instructions>` and the `<instructions path="...">` files the agent attached when a path
 * switched them on.
 */
export const INSTRUCTION_PATTERN = /<(project_instructions|instructions)\b[^>]*>[\s\S]*?<\/\1>/g

/**
 * The default pattern's elements in each message and each text block seen (both are immutable values): a cut
 * looks at each message once, and a message edited since (a new object) scans only its new blocks.
 */
const defaultElements = {
  byMessage: new WeakMap<Message, readonly string[]>(),
  byBlock: new WeakMap<TextBlock, string[]>(),
}

function defaultElementsOf(block: TextBlock): string[] {
  let known = defaultElements.byBlock.get(block)
  if (!known) {
    known = namedElements(block.text, [TAG.projectInstructions, TAG.instructions])
    defaultElements.byBlock.set(block, known)
  }
  return known
}

/**
 * The instruction elements in one message's text blocks, in order; none in an assistant message. Kept per
 * message for the default pattern (messages are immutable values).
 */
export function instructionElements(m: Message, pattern: RegExp = INSTRUCTION_PATTERN): readonly string[] {
  if (m.role === "assistant") return NONE
  const texts = m.content.filter((b): b is TextBlock => b.type === "text")
  // The default pattern is matched by a linear scan (the regex is quadratic on unclosed open tags).
  if (pattern !== INSTRUCTION_PATTERN) {
    const re = new RegExp(pattern.source, pattern.flags.includes("g") ? pattern.flags : `${pattern.flags}g`)
    return texts.flatMap((b) => Array.from(b.text.matchAll(re), (match) => match[0]))
  }
  let known = defaultElements.byMessage.get(m)
  if (!known) {
    known = texts.length === 0 ? NONE : texts.flatMap(defaultElementsOf)
    defaultElements.byMessage.set(m, known)
  }
  return known
}

const NONE: readonly string[] = Object.freeze([])

/** The instruction elements inside the messages of a range, each distinct text once, in order. */
export function instructionsIn(messages: readonly Message[], pattern: RegExp = INSTRUCTION_PATTERN): string[] {
  const found = new Set<string>()
  for (const m of messages) for (const element of instructionElements(m, pattern)) found.add(element)
  return [...found]
}

/**
 * Each view position's instruction elements, kept turn after turn: a position holding the same message as
 * in the last view keeps its elements without looking at the message, so a cut reads a list per position.
 */
export class InstructionIndex {
  #messages: readonly Message[] = []
  #lists: (readonly string[])[] = []

  constructor(private readonly pattern: RegExp = INSTRUCTION_PATTERN) {}

  /** Brings the index up to `view`; returns the elements by position. */
  follow(view: readonly Message[]): (i: number) => readonly string[] {
    const known = this.#messages
    const lists: (readonly string[])[] = new Array(view.length)
    for (let i = 0; i < view.length; i++)
      lists[i] =
        i < known.length && known[i] === view[i] ? this.#lists[i]! : instructionElements(view[i]!, this.pattern)
    this.#messages = view.slice()
    this.#lists = lists
    return (i) => lists[i]!
  }
}

/**
 * The edits for a cut: the hidden range (by the ids of the history messages it spans), the notice in
 * the first assistant message, and instructions from the removed range re-injected into the first
 * user message kept after it.
 */
export function cutEdits(
  view: readonly Message[],
  cut: Cut,
  now: number,
  pattern: RegExp = INSTRUCTION_PATTERN,
  elementsAt: (i: number) => readonly string[] = (i) => instructionElements(view[i]!, pattern),
): (TruncationEdit | AppendEdit)[] {
  // The first and last messages of the cut that are not summaries name the hidden range.
  let first = cut.start
  while (first <= cut.end && isSummaryId(view[first]!.id)) first++
  if (first > cut.end) return []
  let last = cut.end
  while (isSummaryId(view[last]!.id)) last--
  const edits: (TruncationEdit | AppendEdit)[] = [
    { kind: "truncation", ts: now, from: view[first]!.id, to: view[last]!.id },
  ]
  const assistant = view.slice(0, cut.start).find((m) => m.role === "assistant")
  if (assistant) edits.push({ kind: "notice", ts: now, messageId: assistant.id, text: TRUNCATION_NOTICE })
  // Elements by position: a summary's (in the cut) are not lost; its id is looked at only when it holds any.
  const collect = (from: number, to: number, skipSummaries: boolean, into: Set<string>) => {
    for (let i = from; i < to; i++) {
      const list = elementsAt(i)
      if (list.length === 0 || (skipSummaries && isSummaryId(view[i]!.id))) continue
      for (const element of list) into.add(element)
    }
    return into
  }
  const inRemoved = collect(cut.start, cut.end + 1, true, new Set())
  if (inRemoved.size === 0) return edits
  const already = collect(cut.end + 1, view.length, false, collect(0, cut.start, false, new Set()))
  const lost = [...inRemoved].filter((t) => !already.has(t))
  const target = view.slice(cut.end + 1).find((m) => m.role === "user") ?? view[0]
  if (lost.length > 0 && target)
    edits.push({ kind: "reinject", ts: now, messageId: target.id, text: lost.join("\n\n") })
  return edits
}
