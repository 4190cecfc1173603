import { type Diagnostic, diagnostic } from "../diagnostics.js"
import { resolveModel } from "../models/resolve.js"
import type { ModelInfo, WireFormat } from "../models/types.js"
import { wireFormatOf } from "../models/wire.js"
import { type Budget, budgetFor } from "./budget.js"
import { ChangeLog } from "./change-log.js"
import { CHARS_PER_TOKEN, clipEdits } from "./clip.js"
import { compactionEdit, compactionRange, completeSummary, type Summarize } from "./compact.js"
import { DedupMemo, dedupFileReads } from "./dedup.js"
import { type CompactionEdit, type Edit, isSummaryId } from "./edits.js"
import { maskToolResults } from "./mask.js"
import type { Message } from "./message.js"
import { pruneToolOutputs } from "./prune.js"
import type { CountedTool } from "./request-count.js"
import { COMPACTION_DEFAULTS, type CompactionOptions, planSummary, reinjectEdits, type SummaryPlan } from "./staged.js"
import { cacheKey, type Overhead, overheadOf, TokenCounter } from "./tokens.js"
import {
  type Cut,
  cutEdits,
  cutToFit,
  headLength,
  InstructionIndex,
  plannedCut,
  type TruncationStrategy,
} from "./truncate.js"

/** Settings of a ContextManager. */
export interface ContextManagerOptions {
  /** The change log to continue (default: a new, empty one). */
  changeLog?: ChangeLog
  /** Truncation strategy (default `auto`, cache-aware). */
  strategy?: TruncationStrategy
  /** For `auto`: after a cut, the messages fill at most this share of the budget (default 0.3). */
  keepFraction?: number
  /** Tokens (or a fraction of the window when < 1) held back; default Cline's rule. */
  reserve?: number
  /** Dedup alone is enough when it frees at least this share of the tokens (default 0.3). */
  dedupThreshold?: number
  /** Tools whose results are file contents (default `read_file`). */
  readTools?: readonly string[]
  /** What counts as project instructions in user text (default `<project_instructions>` elements). */
  instructionPattern?: RegExp
  /** Opt-in pruning of old tool outputs. */
  prune?: { keepRecent: number; minFree: number }
  /** User additions and overrides of the model catalog. */
  models?: readonly ModelInfo[]
  /** Staged compaction (mask old tool results, then summarize) before truncation; off when absent. */
  compaction?: CompactionOptions
  /** Calibrations to start from, per model id (a resumed session's, as `calibrations()` returned them). */
  calibrations?: Readonly<Record<string, Calibration>>
}

/** A tool definition as far as counting goes. */
export type { CountedTool }

/** One call of `fit`. */
export interface FitRequest {
  /** The model (a ModelInfo, or an id to resolve). */
  model: ModelInfo | string
  /** Now, in ms since the epoch; the timestamp of every edit this call makes. */
  now: number
  /** The system prompt, counted with the messages. */
  system?: string
  /** Tool definitions, counted with the messages. */
  tools?: readonly CountedTool[]
  /** Wire format for overheads (default: the model's provider's). */
  wireFormat?: WireFormat
  /**
   * Usage reported for the previous request: its prompt tokens (input + cache reads + cache writes) and
   * how many view messages it carried. Taken as ground truth, plus exact counts of what came after.
   */
  usage?: { promptTokens: number; messages: number }
}

/** How far our estimate for a model is off: the moving ratio of reported to counted prompt tokens. */
export interface Calibration {
  ratio: number
  samples: number
}

/** Our own count of a request sent whole, by part (no edits, no calibration): what `observe` compares with. */
export interface RequestCount {
  model: ModelInfo
  tokens: {
    system: number
    tools: number
    /** The messages with the wire format's per-request overhead. */
    messages: number
    /** system + tools + messages: `fit`'s `tokens.local` for the same request. */
    local: number
  }
}

/** The weight of a new sample in the moving ratio. */
const CALIBRATION_WEIGHT = 0.3

/** Token figures of a fit. */
export interface FitTokens {
  /** Prompt tokens before any edit of this call (system, tools and messages). */
  before: number
  /** Prompt tokens of what is returned. */
  after: number
  system: number
  tools: number
  budget: Budget
  /** Whether `before` rests on reported usage (true) or on counting alone. */
  fromUsage: boolean
  /** Our own count of what is returned (before calibration), to compare with what the provider reports. */
  local: number
  /** The calibration applied to `before` when no usage was given: reported ÷ counted for this model. */
  ratio?: number
}

/** What `fit` returns: the messages to send, why, and the edits it made. */
export interface FitResult {
  messages: Message[]
  model: ModelInfo
  diagnostics: Diagnostic[]
  /** Edits made by this call (already recorded in the change log). */
  edits: Edit[]
  tokens: FitTokens
  /** Staged compaction: masking was not enough, a summary should be made (`summarize`) before the next request. */
  summaryDue?: boolean
}

/** Fits a conversation into a model's window: dedup, optional pruning, truncation; all recorded as edits. */
export class ContextManager {
  readonly changeLog: ChangeLog
  readonly counter: TokenCounter
  private readonly options: ContextManagerOptions
  /** Per model id: the moving ratio of reported to counted prompt tokens. */
  private readonly calibrations = new Map<string, Calibration>()
  /**
   * The last counted message list, each message's count and the total, so a grown view costs only its new
   * messages and a cut planned on the same list looks up no count.
   */
  private last: { key: string; messages: readonly Message[]; counts: number[]; total: number } | undefined
  /** Dedup's walk of the view, kept up turn by turn, and what it learned of each message and block. */
  private readonly dedupMemo = new DedupMemo()
  /** Instruction elements by view position, kept up turn by turn for the cuts. */
  private readonly instructions: InstructionIndex
  /** The last system prompt and tool list counted, so an unchanged prompt is not hashed every turn. */
  private fixedMemo:
    | { key: string; system?: string; tools?: readonly CountedTool[]; counts: [number, number] }
    | undefined

  constructor(counter: TokenCounter, options: ContextManagerOptions = {}) {
    this.counter = counter
    this.options = options
    this.changeLog = options.changeLog ?? new ChangeLog()
    this.instructions = new InstructionIndex(options.instructionPattern)
    for (const [model, calibration] of Object.entries(options.calibrations ?? {}))
      if (calibration.ratio > 0 && Number.isFinite(calibration.ratio) && calibration.samples > 0)
        this.calibrations.set(model, { ratio: calibration.ratio, samples: calibration.samples })
  }

  /**
   * Calibrates the estimate for a model from a request's reported (or exactly counted) prompt tokens:
   * a moving ratio of reported ÷ our count, applied to later fits that have no usage to go on.
   */
  observe(fit: { model: ModelInfo; tokens: Pick<FitTokens, "local"> }, reported: number): Calibration | undefined {
    const local = fit.tokens.local
    if (!(local > 0 && reported > 0)) return this.calibrations.get(fit.model.id)
    const sample = reported / local
    const was = this.calibrations.get(fit.model.id)
    const ratio = was ? was.ratio + CALIBRATION_WEIGHT * (sample - was.ratio) : sample
    const next = { ratio, samples: (was?.samples ?? 0) + 1 }
    this.calibrations.set(fit.model.id, next)
    return next
  }

  /** The calibration of a model's estimate so far, if any request was observed. */
  calibration(model: string): Calibration | undefined {
    return this.calibrations.get(model)
  }

  /** Every model's calibration so far, by model id in sorted order (what a session keeps). */
  calibrationsByModel(): Record<string, Calibration> {
    const out: Record<string, Calibration> = {}
    for (const id of [...this.calibrations.keys()].sort()) out[id] = { ...this.calibrations.get(id)! }
    return out
  }

  /**
   * Counts a request as it would be sent whole, the way `fit` counts it (system, tools, messages with the
   * wire format's overheads), without edits or calibration: the figure to `observe` an exact count against.
   */
  measure(messages: readonly Message[], request: Omit<FitRequest, "now" | "usage">): RequestCount {
    const model = this.modelOf(request.model, [])
    const family = model.tokenizer
    const overhead = overheadOf(request.wireFormat ?? wireFormatOf(model))
    const [system, tools] = this.countFixed(request, family, overhead)
    const counted = this.counter.countMessages(messages, family, overhead)
    return { model, tokens: { system, tools, messages: counted, local: system + tools + counted } }
  }

  /** Loads the tokenizer and returns a manager. */
  static async create(options?: ContextManagerOptions): Promise<ContextManager> {
    return new ContextManager(await TokenCounter.create(), options)
  }

  /** The view of the history as it stands (no new edits). */
  view(history: readonly Message[]): Message[] {
    return this.changeLog.view(history)
  }

  /** Returns the messages to send for `history`, making and recording the edits needed to fit. */
  fit(history: readonly Message[], request: FitRequest): FitResult {
    const diagnostics: Diagnostic[] = []
    const model = this.modelOf(request.model, diagnostics)
    const family = model.tokenizer
    const overhead = overheadOf(request.wireFormat ?? wireFormatOf(model))
    const budget = budgetFor(model, this.options.reserve)
    const [system, tools] = this.countFixed(request, family, overhead)
    const fixed = system + tools
    const countLocal = (msgs: readonly Message[]) => fixed + this.countView(msgs, family, overhead)

    let view = this.changeLog.view(history)
    // Dedup's walk follows the view turn by turn (only what changed since the last turn is walked), so a
    // turn over the budget finds its view walked already.
    this.dedupMemo.follow(view, this.options.readTools)
    // Replacements of copies made stale by this turn's messages are counted now, not on the turn over the budget.
    for (const block of this.dedupMemo.takePrepared()) this.counter.countBlock(block, family)
    this.instructions.follow(view)
    const usage = request.usage
    const fromUsage = usage !== undefined && usage.messages <= view.length
    const counted = countLocal(view)
    const ratio = fromUsage ? undefined : this.calibrations.get(model.id)?.ratio
    const before = fromUsage
      ? usage.promptTokens + this.counter.countMessages(view.slice(usage.messages), family, overhead) - overhead.request
      : // A ratio below 1 is reported but not applied: our own count stays the safe side.
        Math.ceil(counted * Math.max(1, ratio ?? 1))
    // When the provider counted more than we do (an estimate that ran low, or an overflow it reported),
    // every later check scales our count by that ratio, so a reported overflow leads to a real cut.
    const scale = counted > 0 ? Math.max(1, before / counted) : 1
    const count = (msgs: readonly Message[]) => Math.ceil(countLocal(msgs) * scale)
    const made: Edit[] = []
    let summaryDue = false
    const result = (): FitResult => ({
      messages: view,
      model,
      diagnostics,
      edits: made,
      tokens: {
        before,
        after: made.length ? count(view) : before,
        system,
        tools,
        budget,
        fromUsage,
        local: made.length ? countLocal(view) : counted,
        ...(ratio !== undefined ? { ratio } : {}),
      },
      ...(summaryDue ? { summaryDue } : {}),
    })
    const staged = this.options.compaction && { ...COMPACTION_DEFAULTS, ...this.options.compaction }
    const threshold = staged ? Math.floor(budget.effective * staged.threshold) : budget.effective
    if (before <= threshold) return result()

    const record = (edits: readonly Edit[]) => {
      this.changeLog.add(edits)
      made.push(...edits)
      view = this.changeLog.view(history)
    }
    // 0. Staged compaction, stage 1: old tool results masked; a summary is due if that is not enough.
    if (staged) {
      const { edits, freed } = maskToolResults(view, this.counter, family, overhead, {
        keepTurns: staged.keepTurns,
        now: request.now,
      })
      if (edits.length > 0) {
        record(edits)
        diagnostics.push(
          diagnostic("info", "context-masked", `masked ${edits.length} old tool results (${freed} tokens freed)`),
        )
      }
      const after = count(view)
      summaryDue = after > budget.effective * staged.target && this.worthSummary(view, family, overhead, staged, budget)
      if (summaryDue)
        diagnostics.push(diagnostic("info", "context-summary-due", `${after} tokens after masking; a summary is due`))
      if (after <= budget.effective) return result()
    }

    // 1. Dedup of repeated file contents.
    const dedup = dedupFileReads(view, { now: request.now, readTools: this.options.readTools, memo: this.dedupMemo })
    if (dedup.length > 0) {
      record(dedup)
      const freed = counted - countLocal(view)
      diagnostics.push(
        diagnostic(
          "info",
          "context-deduplicated",
          `replaced ${dedup.length} older file copies (${freed} tokens freed)`,
        ),
      )
      const share = freed / Math.max(1, counted)
      const after = count(view)
      if (after <= budget.effective) return result()
      // Cline's rule: enough freed means no cut this turn, if the request still fits the window with
      // room for an answer (the reserve is a margin, the window is the hard limit).
      if (share >= (this.options.dedupThreshold ?? 0.3) && after <= budget.window - Math.min(model.maxOutput, 8_192)) {
        diagnostics.push(
          diagnostic(
            "info",
            "context-truncation-skipped",
            `dedup freed ${(share * 100).toFixed(0)}%; no truncation this turn`,
          ),
        )
        return result()
      }
    }

    // 2. Opt-in pruning of old tool outputs.
    if (this.options.prune) {
      const { edits, freed } = pruneToolOutputs(view, this.counter, family, overhead, {
        ...this.options.prune,
        now: request.now,
      })
      if (edits.length > 0) {
        record(edits)
        diagnostics.push(
          diagnostic("info", "context-pruned", `pruned ${edits.length} old tool outputs (${freed} tokens)`),
        )
        if (count(view) <= budget.effective) return result()
      }
    }

    // 3. Truncation, repeated until the messages fit or nothing more can be cut.
    for (let round = 0; round < 8 && count(view) > budget.effective; round++) {
      const cut = this.planCut(view, family, overhead, Math.floor(budget.effective / scale) - fixed)
      if (!cut) break
      const edits = cutEdits(view, cut, request.now, this.options.instructionPattern, this.instructions.follow(view))
      if (edits.length === 0) break
      record(edits)
      diagnostics.push(
        diagnostic("info", "context-truncated", `removed ${cut.end - cut.start + 1} messages after the first exchange`),
      )
    }
    // 4. Last resort: tool results that alone outgrow the budget (saved before results were bounded, or
    // bounded for a larger model) are cut, head and tail kept, as undoable edits.
    if (count(view) > budget.effective) {
      const room =
        Math.floor(budget.effective / scale) -
        fixed -
        this.counter.countMessages(view.slice(0, headLength(view)), family, overhead)
      const edits = clipEdits(view, Math.max(0, room) * CHARS_PER_TOKEN, request.now)
      if (edits.length > 0) {
        record(edits)
        diagnostics.push(
          diagnostic("warning", "context-result-clipped", `cut ${edits.length} tool results too large for the budget`),
        )
      }
    }
    const after = count(view)
    if (after > budget.effective) {
      diagnostics.push(
        diagnostic(
          "error",
          "context-over-budget",
          `${after} tokens remain over the budget of ${budget.effective} (window ${budget.window}); the first exchange and last message alone are too large`,
        ),
      )
    }
    return result()
  }

  /**
   * Plans staged compaction's summary for the view: the range to condense and the summarizing request,
   * fitted to the model's budget beside `system` (the summarizing prompt). Undefined when nothing can be condensed.
   */
  planSummary(
    history: readonly Message[],
    request: Pick<FitRequest, "model" | "system" | "tools" | "wireFormat"> & { keepTail?: number },
  ): SummaryPlan | undefined {
    const model = this.modelOf(request.model, [])
    const family = model.tokenizer
    const overhead = overheadOf(request.wireFormat ?? wireFormatOf(model))
    const budget = budgetFor(model, this.options.reserve)
    const system = this.countFixed(request, family, overhead).reduce((a, b) => a + b, 0)
    const keepTail = request.keepTail ?? this.options.compaction?.keepTail ?? COMPACTION_DEFAULTS.keepTail
    return planSummary({
      history,
      view: this.changeLog.view(history),
      edits: this.changeLog.edits,
      keepTail,
      room: budget.effective - system,
      count: (msgs) => this.counter.countMessages(msgs, family, overhead),
      mask: (msgs) => maskToolResults(msgs, this.counter, family, overhead, { keepTurns: 0, now: 0 }).edits,
    })
  }

  /**
   * Records a summary for a plan: the task and latest request verbatim, files and last error completed,
   * project instructions of the condensed range put back. Its timestamp follows every earlier edit, so
   * `undo` can take it back alone.
   */
  applySummary(plan: SummaryPlan, answer: Parameters<typeof completeSummary>[0], now: number): CompactionEdit {
    const summary = completeSummary(answer, plan.source, plan.condensed, plan.previous)
    const ts = Math.max(now, (this.changeLog.head ?? now - 1) + 1)
    const edit = compactionEdit(plan.from, plan.to, summary, ts)
    this.changeLog.add([edit, ...reinjectEdits(edit, plan, this.options.instructionPattern)])
    return edit
  }

  /** Condenses the view with the caller's model call (stage 2 of staged compaction); records and returns the edit. */
  async compact(
    history: readonly Message[],
    summarize: Summarize,
    options: { now: number; keepTail?: number; model?: ModelInfo | string; system?: string },
  ): Promise<CompactionEdit | undefined> {
    const plan = this.planSummary(history, {
      model: options.model ?? unbounded(),
      ...(options.system ? { system: options.system } : {}),
      ...(options.keepTail !== undefined ? { keepTail: options.keepTail } : {}),
    })
    if (!plan) return undefined
    return this.applySummary(plan, await summarize(plan.messages, plan.instructions), options.now)
  }

  /** Whether a summary would condense enough to matter: at least a tenth of the budget. */
  private worthSummary(
    view: readonly Message[],
    family: ModelInfo["tokenizer"],
    overhead: Overhead,
    staged: Required<CompactionOptions>,
    budget: Budget,
  ): boolean {
    const range = compactionRange(view, staged.keepTail)
    if (!range) return false
    const condensed = view.slice(range.start, range.end + 1).filter((m) => !isSummaryId(m.id))
    return this.counter.countMessages(condensed, family, overhead) >= budget.effective * 0.1
  }

  /** Tokens of the system prompt and the tool definitions, remembered while they stay the same. */
  private countFixed(
    request: Pick<FitRequest, "system" | "tools">,
    family: ModelInfo["tokenizer"],
    overhead: Overhead,
  ): [number, number] {
    const key = `${family}/${overhead.tool}/${overhead.toolsPreamble}`
    const memo = this.fixedMemo
    if (memo && memo.key === key && memo.system === request.system && memo.tools === request.tools) return memo.counts
    const counts: [number, number] = [
      request.system ? this.counter.countText(request.system, family) : 0,
      this.counter.countTools(request.tools ?? [], family, overhead),
    ]
    this.fixedMemo = { key, system: request.system, tools: request.tools, counts }
    return counts
  }

  /**
   * Tokens of a message list. Against the previous list: a message in the same place as before keeps its
   * count from the previous list, so only the messages that changed place or content are looked up.
   */
  private countView(messages: readonly Message[], family: ModelInfo["tokenizer"], overhead: Overhead): number {
    const key = viewKey(family, overhead)
    const messageKey = cacheKey(family, overhead)
    const last = this.last
    const was = last?.key === key ? last : undefined
    const shared = was ? Math.min(was.messages.length, messages.length) : 0
    const counts: number[] = new Array(messages.length)
    let total = overhead.request
    for (let i = 0; i < messages.length; i++) {
      const n =
        i < shared && was!.messages[i] === messages[i]
          ? was!.counts[i]!
          : this.counter.countMessage(messages[i]!, family, overhead, messageKey)
      counts[i] = n
      total += n
    }
    // A copy: the caller gets the view as its result and may change that array.
    this.last = { key, messages: messages.slice(), counts, total }
    return total
  }

  /** Each message's count: the last count's when `view` is the list counted last (no lookups). */
  private countsOf(view: readonly Message[], family: ModelInfo["tokenizer"], overhead: Overhead): number[] {
    const last = this.last
    const key = viewKey(family, overhead)
    if (last?.key === key && last.messages.length === view.length && last.messages.every((m, i) => m === view[i]))
      return last.counts
    const messageKey = cacheKey(family, overhead)
    return view.map((m) => this.counter.countMessage(m, family, overhead, messageKey))
  }

  private modelOf(model: ModelInfo | string, diagnostics: Diagnostic[]): ModelInfo {
    if (typeof model !== "string") return model
    const resolved = resolveModel(model, { models: this.options.models })
    diagnostics.push(...resolved.diagnostics)
    return resolved.model
  }

  private planCut(
    view: readonly Message[],
    family: ModelInfo["tokenizer"],
    overhead: Overhead,
    room: number,
  ): Cut | undefined {
    const strategy = this.options.strategy ?? "auto"
    if (strategy !== "auto") return plannedCut(view, strategy)
    return cutToFit(view, this.countsOf(view, family, overhead), Math.max(0, room * (this.options.keepFraction ?? 0.3)))
  }
}

/** A model with an unbounded window, for compaction without a model to fit to. */
function unbounded(): ModelInfo {
  const { maxInput: _, ...model } = resolveModel("unbounded-summary-model").model
  return { ...model, contextWindow: Number.MAX_SAFE_INTEGER }
}

/** The key under which a view's counts are kept: the message counts' key plus the request's overhead. */
function viewKey(family: ModelInfo["tokenizer"], overhead: Overhead): string {
  return `${cacheKey(family, overhead)}/${overhead.request}`
}
