import { ChangeLog } from "./change-log.js"
import { compactionRange, parseSummary, SUMMARY_INSTRUCTIONS, type Summary } from "./compact.js"
import {
  type AppendEdit,
  type BlockEdit,
  type CompactionEdit,
  type Edit,
  isSummaryId,
  summaryMessageId,
} from "./edits.js"
import type { Message } from "./message.js"
import { headLength, instructionsIn } from "./truncate.js"

/**
 * Staged compaction: when the view would cross a threshold below the budget, old tool results are
 * masked first (stage 1, `mask.ts`); only when that is not enough is the model asked for a structured
 * summary (stage 2, this file), with the summarizing request itself fitted to the window.
 */

/** Settings of staged compaction (`ContextManagerOptions.compaction`). */
export interface CompactionOptions {
  /** Stage 1 starts when the prompt would exceed this share of the budget (default 0.5). */
  threshold?: number
  /** A summary is due when masking leaves the prompt above this share of the budget (default 0.3). */
  target?: number
  /** The results of this many most recent assistant turns are never masked (default 3). */
  keepTurns?: number
  /** Messages kept verbatim after a summary (default 6; the tail starts with an assistant message). */
  keepTail?: number
}

/** The defaults of staged compaction. */
export const COMPACTION_DEFAULTS: Required<CompactionOptions> = {
  threshold: 0.5,
  target: 0.3,
  keepTurns: 3,
  keepTail: 6,
}

/** The id of the instruction message at the end of a summarizing request. */
export const SUMMARY_REQUEST_ID = "summary-request"

/** A planned summary: what the summarizing request sends and what the summary will replace. */
export interface SummaryPlan {
  /** The fitted messages for the summarizing model: the view up to the range's end, then the instructions. */
  messages: Message[]
  instructions: string
  /** First and last history message the summary hides (an earlier summary's range included). */
  from: string
  to: string
  /** The history messages condensed (as recorded, before any edit; earlier summaries left out). */
  condensed: Message[]
  /** The view up to the range's end, unfitted (the source of the verbatim task and latest request). */
  source: Message[]
  /** The summary this one supersedes, parsed. */
  previous?: Summary
  /** Tool results masked and messages dropped to fit the summarizing request. */
  masked: number
  dropped: number
  /** Tokens of the summarizing request's messages, and whether they fit the room given. */
  tokens: number
  fits: boolean
}

/** What planning a summary needs from the manager. */
export interface PlanInput {
  history: readonly Message[]
  view: readonly Message[]
  edits: readonly Edit[]
  keepTail: number
  /** Tokens the summarizing request's messages may take. */
  room: number
  count: (messages: readonly Message[]) => number
  /** Mask edits for every tool result of the messages (stage 1 applied to the summarizing input). */
  mask: (messages: readonly Message[]) => BlockEdit[]
}

/** Plans stage 2: the range to condense and the summarizing request, fitted to `room`. */
export function planSummary(input: PlanInput): SummaryPlan | undefined {
  const { view, edits } = input
  const range = compactionRange(view, input.keepTail)
  if (!range) return undefined
  const inView = view.slice(range.start, range.end + 1).filter((m) => !isSummaryId(m.id))
  if (inView.length === 0) return undefined
  const byId = new Map(input.history.map((m) => [m.id, m]))
  const condensed = inView.map((m) => byId.get(m.id) ?? m)
  // An earlier summary inside the range is superseded: the new range starts where the earlier one did.
  const earlier = edits.find(
    (e): e is CompactionEdit => e.kind === "compaction" && summaryMessageId(e) === view[range.start]!.id,
  )
  const source = view.slice(0, range.end + 1)
  const instructions = SUMMARY_INSTRUCTIONS
  const ask: Message = { id: SUMMARY_REQUEST_ID, role: "user", ts: 0, content: [{ type: "text", text: instructions }] }
  const fitted = fitSummaryInput(source, ask, input)
  return {
    ...fitted,
    instructions,
    from: earlier?.from ?? condensed[0]!.id,
    to: condensed.at(-1)!.id,
    condensed,
    source,
    ...(earlier ? { previous: parseSummary(earlier.summary) } : {}),
  }
}

/** The summarizing input: as is when it fits; else with tool results masked; else oldest messages dropped. */
function fitSummaryInput(
  source: readonly Message[],
  ask: Message,
  input: PlanInput,
): Pick<SummaryPlan, "messages" | "masked" | "dropped" | "tokens" | "fits"> {
  const measure = (messages: Message[], masked: number, dropped: number) => {
    const all = [...messages, ask]
    const tokens = input.count(all)
    return { messages: all, masked, dropped, tokens, fits: tokens <= input.room }
  }
  const plain = measure([...source], 0, 0)
  if (plain.fits) return plain
  const mask = input.mask(source)
  const masked = measure(new ChangeLog(mask).view(source), mask.length, 0)
  if (masked.fits) return masked
  const start = headLength(source)
  let best = masked
  for (let end = start; end < source.length - 1; end++) {
    // The message after the cut must differ in role from the one before it.
    if (source[end + 1]!.role === source[start - 1]?.role) continue
    const hidden = source.slice(start, end + 1).filter((m) => !isSummaryId(m.id))
    if (hidden.length === 0) continue
    const log = new ChangeLog([...mask, { kind: "truncation", ts: 0, from: hidden[0]!.id, to: hidden.at(-1)!.id }])
    best = measure(log.view(source), mask.length, end - start + 1)
    if (best.fits) return best
  }
  return best
}

/** Project-instruction elements of the condensed messages, put back into the summary message. */
export function reinjectEdits(edit: CompactionEdit, plan: SummaryPlan, pattern?: RegExp): AppendEdit[] {
  const lost = instructionsIn(plan.condensed, pattern)
  const ids = new Set(plan.condensed.map((m) => m.id))
  // Instructions still in the head (the context message) need no copy.
  const kept = new Set(
    instructionsIn(
      plan.source.filter((m) => !ids.has(m.id) && !isSummaryId(m.id)),
      pattern,
    ),
  )
  const text = lost.filter((t) => !kept.has(t)).join("\n\n")
  return text ? [{ kind: "reinject", ts: edit.ts, messageId: summaryMessageId(edit), text }] : []
}
