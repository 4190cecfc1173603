import { InstructionTracker } from "../context/activate.js"
import type { PromptContext } from "../context/prompt-context.js"
import { CHARS_PER_TOKEN } from "../history/clip.js"
import type { Calibration, ContextManager, CountedTool, FitResult } from "../history/context-manager.js"
import { FileTracker, renderChangedFiles } from "../history/file-tracker.js"
import type { Block, Message, TextBlock } from "../history/message.js"
import { toolUsesOf } from "../history/message.js"
import { type CompactionTarget, compactionWindow, foreignCompactions, madeBy } from "../history/provider-compaction.js"
import { promptCount } from "../history/request-count.js"
import { AGENT_TEXTS } from "../history/requests.js"
import { joinUserRuns } from "../history/turns.js"
import { requestCost } from "../models/cost.js"
import type { ModelInfo, WireFormat } from "../models/types.js"
import { ACT_MODE_UPDATE, dateUpdate, TAG } from "../notices.js"
import type { BuiltPrompt, PromptBuilder } from "../prompt/builder.js"
import { Accumulator, type AssembledResponse } from "../providers/accumulate.js"
import { ANTHROPIC_MIN_COMPACTION_TRIGGER } from "../providers/context-management.js"
import { type EncodeOptions, encodeRequest } from "../providers/encode.js"
import { ProviderError } from "../providers/errors.js"
import type { StreamEvent, Usage } from "../providers/stream.js"
import { addUsage, ZERO_USAGE } from "../providers/stream.js"
import { withXmlToolCalls } from "../providers/xml-parser.js"
import { wrapTag } from "../tag-wrap.js"
import { DeferredTools } from "../tools/search/deferred-tools.js"
import { type ApprovalPolicy, type ConfirmCall, READ_KINDS } from "./approval.js"
import type { AgentEvent } from "./events.js"
import type { ExecutorEnv } from "./executors/index.js"
import { figuresOf } from "./figures.js"
import type { Session } from "./session.js"
import { runToolCalls } from "./tool-runner.js"
import type { CompactResult } from "./transport/compact.js"
import { abortableSleep, type Sleep } from "./transport/retry.js"

/** One request to the provider; resolves with its stream of events (retries happen inside). */
export type SendRequest = (request: {
  format: WireFormat
  body: unknown
  /** Headers the body needs (Anthropic betas for context management), when any. */
  headers?: Record<string, string>
  model: ModelInfo
  signal: AbortSignal
  onRetry: (attempt: number, delayMs: number, error: ProviderError) => void
}) => Promise<AsyncIterable<StreamEvent>>

/** Everything an agent run needs. The clock and today's date come in from outside. */
export interface AgentConfig {
  context: PromptContext
  builder: PromptBuilder
  manager: ContextManager
  send: SendRequest
  session: Session
  /** The history so far (a resumed session); empty for a new one. */
  history?: Message[]
  files?: FileTracker
  approve: ApprovalPolicy
  confirm?: ConfirmCall
  /** Asks the person a question (ask_followup_question, replies to a plan); absent when nobody can answer. */
  ask?: ExecutorEnv["ask"]
  maxTurns: number
  /** Waits between attempts after a failed stream (tests pass one that does not wait). */
  sleep?: Sleep
  now: () => number
  /** Today as YYYY-MM-DD; checked every turn so a session that runs past midnight says so. */
  today: () => string
  /** The wire format to speak; default: the model's provider's (`BuiltPrompt.wireFormat`). */
  format?: WireFormat
  encode?: EncodeOptions
  /**
   * Provider-side context management: where the wire format has it (Anthropic, OpenAI Responses) the provider is
   * asked to compact at `trigger` prompt tokens, its compaction items go back to it, and what came before the
   * latest one is neither sent nor counted. Compaction items the current provider cannot read make promptline
   * summarize the turns they condensed itself.
   */
  providerCompaction?: { trigger: number }
  /** OpenAI's `POST /v1/responses/compact`, used with `providerCompaction` when a request would not fit. */
  compact?: (body: Record<string, unknown>, signal: AbortSignal) => Promise<CompactResult>
  executor?: Omit<ExecutorEnv, "workspace" | "signal" | "ask" | "interactive" | "skills">
  onEvent?: (event: AgentEvent) => void
  signal?: AbortSignal
}

/** How a run ended. */
export interface RunResult {
  reason: Extract<AgentEvent, { type: "done" }>["reason"]
  result?: string
  turns: number
  usage: Usage
  history: Message[]
  /** Summarizing requests staged compaction made in this run. */
  summaries: number
}

/** One model turn as the loop needs it. */
interface TurnResponse {
  message: Message
  /** The fit the answer was given for (its token figures bound the next tool results). */
  fit: FitResult
  stopReason: string
  errors: { kind?: string; message: string; toolCallId?: string; raw?: string }[]
}

/** Stream failures worth asking again for: the request was fine, the delivery was not. */
const RETRY_STREAM: ReadonlySet<string> = new Set(["network", "server", "rate-limit", "truncated"])

/** The share of the free budget one round of tool results may fill. */
const RESULT_SHARE = 0.5

/** Turns to wait after a failed summarizing request before asking again. */
const SUMMARY_RETRY_TURNS = 5

/** Wire formats whose provider compacts the conversation itself (Anthropic, OpenAI Responses). */
export const PROVIDER_COMPACTION_FORMATS: readonly WireFormat[] = ["anthropic", "openai-responses"]

/** How many times a failed stream is asked for again before the run gives up. */
const STREAM_RETRIES = 3

const NUDGE = AGENT_TEXTS.nudge

/**
 * Tool kinds that only look: a run that called nothing else has changed nothing, so a text answer
 * ends it (a question answered directly). After any other call the completion tool is expected.
 */
const LOOKING: ReadonlySet<string> = new Set<string>([...READ_KINDS, "ask", "act_respond", "plan_respond"])

/** The biggest number in an overflow message is the prompt size the provider counted. */
function reportedTokens(message: string): number | undefined {
  const numbers = [...message.matchAll(/\d[\d,]{2,}/g)].map((m) => Number(m[0].replace(/,/g, "")))
  const max = Math.max(0, ...numbers)
  return max >= 1000 ? max : undefined
}

/** One line for the edits a fit made: how many of each kind and the tokens they freed. */
export function contextNote(fit: Pick<FitResult, "edits" | "tokens">): string {
  const kinds = new Map<string, number>()
  for (const e of fit.edits) kinds.set(e.kind, (kinds.get(e.kind) ?? 0) + 1)
  const what = [...kinds].map(([kind, n]) => `${n} ${kind}`).join(", ")
  const freed = Math.max(0, fit.tokens.before - fit.tokens.after)
  return `context: ${what} edit${fit.edits.length === 1 ? "" : "s"}, ${freed.toLocaleString("en-US")} tokens freed`
}

/**
 * The agent loop: build the prompt, fit the history, encode, send, decode, run the tools, append,
 * until the model completes, the turn limit is hit, or the run is aborted. Every message is appended
 * to the session as it is made, so an interrupted run can be resumed.
 */
export class Agent {
  readonly #c: AgentConfig
  readonly #history: Message[]
  readonly #files: FileTracker
  readonly #instructions: InstructionTracker
  readonly #signal: AbortSignal
  #context: PromptContext
  #lastHash: string | undefined
  #lastUsage: { promptTokens: number; messages: number } | undefined
  #usage: Usage = ZERO_USAGE
  /** Summed per request: prices can depend on each request's size. */
  #cost: number | undefined
  /** Turns so far in the session (numbers XML call ids); `#firstTurn` is where this run began. */
  #turn = 0
  #firstTurn = 0
  #ids = 0
  /** The searchable deferred tools of the current build (rebuilt only when its deferred list changes). */
  #deferred: DeferredTools | undefined
  /** Summaries made by staged compaction in this run. */
  #summaries = 0
  /** The turn of the last failed summarizing request, if any. */
  #summaryFailed: number | undefined
  /** The history index of the last foreign compaction item a fallback summary was tried for. */
  #fallbackAt = -1

  constructor(config: AgentConfig) {
    this.#c = config
    this.#history = [...(config.history ?? [])]
    // A resumed session goes on from the date and mode it last stated; a new day is then appended.
    const meta = config.session.meta
    this.#context =
      this.#history.length > 0
        ? { ...config.context, ...(meta.date ? { date: meta.date } : {}), ...(meta.mode ? { mode: meta.mode } : {}) }
        : config.context
    this.#files = config.files ?? new FileTracker(config.context.cwd)
    this.#instructions = new InstructionTracker(config.context)
    this.#instructions.markGiven(config.session.meta.instructionsGiven)
    this.#signal = config.signal ?? new AbortController().signal
    this.#turn = this.#history.filter((m) => m.role === "assistant").length
    this.#firstTurn = this.#turn
  }

  #emit(event: AgentEvent): void {
    this.#c.onEvent?.(event)
    // Streamed deltas are shown, not logged: the assembled message lands in the history.
    if (event.type !== "text" && event.type !== "thinking") void this.#c.session.appendEvent(event)
  }

  #id(role: string): string {
    return `${this.#c.session.id}-${role}-${this.#history.length}-${++this.#ids}`
  }

  async #append(role: Message["role"], content: Block[], id = this.#id(role)): Promise<Message> {
    const message: Message = { id, role, content, ts: this.#c.now() }
    this.#history.push(message)
    await this.#c.session.appendMessage(message)
    return message
  }

  /** Runs the task (or continues a resumed session, with `task` as a new user message when given). */
  async run(task?: string): Promise<RunResult> {
    const built = this.#c.builder.build(this.#context)
    this.#emit({
      type: "session",
      id: this.#c.session.id,
      cwd: this.#context.cwd,
      resumed: this.#history.length > 0,
      model: built.model.id,
      provider: this.#context.model.provider,
      variant: built.variant,
      toolCalling: built.toolCalling,
    })
    // What the build found (an unknown model assumed to have the default window, a template problem).
    for (const d of built.diagnostics) this.#emit({ type: "diagnostic", diagnostic: d })
    this.#build()
    await this.#open(built, task)
    try {
      return await this.#loop()
    } finally {
      await this.#c.session.update({ instructionsGiven: this.#instructions.givenPaths })
      await this.#c.session.saveState(this.#c.manager.changeLog, this.#files.toJSON())
    }
  }

  /** The first user message (context message + task), or what a resumed session needs to go on. */
  async #open(built: BuiltPrompt, task: string | undefined): Promise<void> {
    if (this.#history.length === 0) {
      // The context message is placed once, at the start, and never rewritten: later changes are appended.
      const blocks: TextBlock[] = []
      if (built.contextMessage) blocks.push({ type: "text", text: built.contextMessage })
      blocks.push({ type: "text", text: task ?? this.#c.session.meta.task })
      await this.#append("user", blocks)
      await this.#c.session.update({ date: this.#context.date, mode: this.#context.mode })
      return
    }
    const last = this.#history.at(-1)!
    const unanswered = last.role === "assistant" ? toolUsesOf(last) : []
    const blocks: Block[] = unanswered.map((u) => ({
      type: "tool_result",
      toolUseId: u.id,
      content:
        "The session was interrupted before this call finished; it may not have run. Check before relying on it.",
      isError: true,
    }))
    // What changed while the session was away (a new day, files edited meanwhile) goes first.
    blocks.push(...(await this.#updates()))
    if (task) blocks.push({ type: "text", text: task })
    else if (last.role === "assistant" || blocks.length > 0) blocks.push({ type: "text", text: AGENT_TEXTS.resumed })
    if (blocks.length > 0) await this.#append("user", blocks)
  }

  #build(): BuiltPrompt {
    const built = this.#c.builder.build(this.#context)
    if (built.hash !== this.#lastHash) {
      this.#emit({ type: "prompt", hash: built.hash, rebuilt: this.#lastHash !== undefined })
      this.#lastHash = built.hash
    }
    return built
  }

  /** Facts that changed since the context message: a new day, files changed by someone else. */
  async #updates(): Promise<TextBlock[]> {
    const out: TextBlock[] = []
    const today = this.#c.today()
    if (today !== this.#context.date) {
      this.#context = { ...this.#context, date: today }
      await this.#c.session.update({ date: today })
      out.push({ type: "text", text: wrapTag(TAG.environmentUpdate, dateUpdate(today), { inline: true }) })
    }
    const changed = await this.#files.changedSinceSeen()
    if (changed.length > 0) {
      out.push({ type: "text", text: renderChangedFiles(changed) })
      await this.#files.acknowledge(changed, this.#c.now())
    }
    return out
  }

  async #loop(): Promise<RunResult> {
    let nudged = false
    /** True once this run called a tool that may change something (see LOOKING). */
    let acted = false
    for (;;) {
      if (this.#signal.aborted) return this.#done("aborted")
      if (this.#turn - this.#firstTurn >= this.#c.maxTurns) return this.#done("max_turns")
      this.#turn++
      this.#emit({ type: "turn_start", turn: this.#turn })
      const built = this.#build()
      let response: TurnResponse
      try {
        response = await this.#request(built)
      } catch (error) {
        if (this.#signal.aborted) return this.#done("aborted")
        return this.#done("error", undefined, error instanceof Error ? error.message : String(error))
      }
      const { message, stopReason } = response
      const calls = toolUsesOf(message)
      if (calls.length === 0) {
        if (stopReason === "error") return this.#done("error", undefined, "the response failed; see the diagnostics")
        if (this.#signal.aborted) return this.#done("aborted")
        if (acted && !nudged && built.tools.some((t) => t.kind === "complete")) {
          nudged = true
          await this.#append("user", [{ type: "text", text: NUDGE }])
          continue
        }
        return this.#done(
          "answered",
          message.content
            .filter((b) => b.type === "text")
            .map((b) => (b as TextBlock).text)
            .join("\n"),
        )
      }
      nudged = false
      const kinds = new Map(built.tools.map((t) => [t.name, t.kind as string]))
      if (calls.some((c) => !LOOKING.has(kinds.get(c.name) ?? ""))) acted = true
      const invalid = new Map(
        response.errors
          .filter((e) => e.kind === "invalid-arguments" && e.toolCallId)
          .map((e) => [e.toolCallId!, e.raw ?? ""]),
      )
      const round = await runToolCalls(calls, {
        invalidArguments: invalid,
        context: this.#context,
        tools: built.tools,
        ...(built.deferredTools.length > 0 ? { deferred: this.#deferredOf(built) } : {}),
        executor: {
          ...this.#c.executor,
          workspace: this.#context.cwd,
          interactive: this.#context.interactive && this.#c.ask !== undefined,
          skills: this.#context.skills,
          ...(this.#c.ask ? { ask: this.#c.ask } : {}),
        },
        approve: this.#c.approve,
        ...(this.#c.confirm ? { confirm: this.#c.confirm } : {}),
        instructions: this.#instructions,
        files: this.#files,
        now: this.#c.now,
        emit: (e) => this.#emit(e),
        signal: this.#signal,
        maxResultChars: this.#resultAllowance(response.fit),
      })
      const extra = [...round.notes, ...(await this.#updates())]
      const control = round.control
      if (control?.type === "plan_response" && this.#c.ask && this.#context.interactive && !this.#signal.aborted) {
        const reply = await this.#c
          .ask(control.response, ["Switch to act mode", "Keep planning"], this.#signal)
          .catch(() => "")
        if (/^(\/?act|switch to act mode)$/i.test(reply.trim())) {
          this.#context = { ...this.#context, mode: "act" }
          await this.#c.session.update({ mode: "act" })
          extra.push({
            type: "text",
            text: wrapTag(TAG.environmentUpdate, ACT_MODE_UPDATE, { inline: true }),
          })
        } else if (reply.trim()) extra.push({ type: "text", text: reply })
      }
      await this.#append("user", [...round.results, ...extra])
      await this.#c.session.saveState(this.#c.manager.changeLog, this.#files.toJSON())
      if (control?.type === "completion") return this.#done("completed", control.result)
      if (control?.type === "new_task") return this.#done("completed", control.context)
      if (control?.type === "plan_response" && !(this.#c.ask && this.#context.interactive)) {
        return this.#done("answered", control.response)
      }
    }
  }

  /**
   * One model turn: fit, encode, send, decode. A context overflow truncates harder and retries once; a
   * stream that fails before it completes (cut connection, overload or server error mid-stream) is
   * discarded and asked for again, up to STREAM_RETRIES times. The accepted answer is appended.
   */
  async #request(built: BuiltPrompt): Promise<TurnResponse> {
    let overflow: number | undefined
    let overflowed = false
    for (let failures = 0; ; ) {
      const fit = await this.#prepare(built, overflow)
      let response: AssembledResponse | undefined
      let failure: { kind?: string; message: string } | undefined
      try {
        response = await this.#stream(built, fit)
        failure = response.complete ? undefined : response.errors.find((e) => RETRY_STREAM.has(e.kind ?? ""))
        const tooLong = response.errors.find((e) => e.kind === "context-overflow")
        if (tooLong && response.message.content.length === 0) failure = tooLong
      } catch (error) {
        if (!(error instanceof ProviderError && error.kind === "context-overflow")) throw error
        failure = { kind: error.kind, message: error.message }
      }
      if (failure?.kind === "context-overflow" && !overflowed && !this.#signal.aborted) {
        overflowed = true
        overflow = Math.max(reportedTokens(failure.message) ?? 0, built.model.contextWindow + 1)
        this.#emit({
          type: "notice",
          message: "the provider reported a context overflow; truncating harder and retrying",
        })
        continue
      }
      if (failure && failure.kind !== "context-overflow" && failures < STREAM_RETRIES && !this.#signal.aborted) {
        failures++
        const delayMs = 1000 * 2 ** (failures - 1)
        this.#emit({ type: "retry", attempt: failures, delayMs, reason: `the response failed: ${failure.message}` })
        await (this.#c.sleep ?? abortableSleep)(delayMs, this.#signal).catch(() => undefined)
        continue
      }
      if (!response) throw new ProviderError("context-overflow", failure?.message ?? "context overflow")
      return this.#accept(built, fit, response)
    }
  }

  /** The build's deferred tools as a searchable set, kept while the build leaves out the same tools. */
  #deferredOf(built: BuiltPrompt): DeferredTools {
    if (this.#deferred?.tools !== built.deferredTools) this.#deferred = new DeferredTools(built.deferredTools)
    return this.#deferred
  }

  /** Appends an answer to the history and reports its figures. */
  async #accept(built: BuiltPrompt, fit: FitResult, response: AssembledResponse): Promise<TurnResponse> {
    const message = await this.#append("assistant", response.message.content, response.message.id)
    this.#usage = addUsage(this.#usage, response.usage)
    const cost = requestCost(response.usage, built.model.prices)?.total
    if (cost !== undefined) this.#cost = (this.#cost ?? 0) + cost
    const prompt = response.usage.input + response.usage.cacheRead + response.usage.cacheWrite
    let calibration: Calibration | undefined
    if (prompt > 0) {
      this.#lastUsage = { promptTokens: prompt, messages: fit.messages.length }
      calibration = this.#c.manager.observe(fit, prompt)
      // Kept per model in the session, so `inspect --session` shows it and a resumed run starts from it.
      if (calibration) await this.#c.session.update({ calibration: this.#c.manager.calibrationsByModel() })
    }
    this.#emit({
      type: "turn_end",
      turn: this.#turn,
      stopReason: response.stopReason,
      ...(calibration ? { calibration: { model: fit.model.id, ...calibration } } : {}),
      ...figuresOf(response.usage, built.model),
    })
    return { message, fit, stopReason: response.stopReason, errors: response.errors }
  }

  /**
   * Text characters one round of tool results may take: half of what the budget leaves beside the system
   * prompt and the tools, so a single round can never outgrow the window (the fit then makes room for it
   * by truncating older turns).
   */
  #resultAllowance(fit: FitResult): number {
    const { budget, system, tools } = fit.tokens
    return Math.floor(Math.max(0, budget.effective - system - tools) * RESULT_SHARE) * CHARS_PER_TOKEN
  }

  /** The fit for a request; when staged compaction says a summary is due, the summary is made first. */
  async #prepare(built: BuiltPrompt, overflowTokens: number | undefined): Promise<FitResult> {
    if (await this.#foreignFallback(built)) return this.#fit(built, overflowTokens)
    let fit = this.#fit(built, overflowTokens)
    if (this.#providerSide(built) && this.#c.compact && this.#format(built) === "openai-responses") {
      // A request that would be cut to fit is compacted by the provider instead, when it offers an endpoint.
      if (
        fit.tokens.before > fit.tokens.budget.effective &&
        !this.#signal.aborted &&
        (await this.#compactEndpoint(built))
      )
        fit = this.#fit(built, overflowTokens)
      return fit
    }
    if (!fit.summaryDue || this.#signal.aborted) return fit
    // After a failed summary, the next tries wait a few turns (truncation keeps the requests in the window).
    if (this.#summaryFailed !== undefined && this.#turn - this.#summaryFailed < SUMMARY_RETRY_TURNS) return fit
    const made = await this.#summarize(built).catch((error: unknown) => {
      if (this.#signal.aborted) return false
      this.#summaryFailed = this.#turn
      const why = error instanceof Error ? error.message : String(error)
      this.#emit({ type: "notice", message: `context: the summary failed (${why}); older turns are truncated instead` })
      return false
    })
    return made ? this.#fit(built, overflowTokens) : fit
  }

  /**
   * Staged compaction, stage 2: asks the model for a structured summary of the older turns. The request
   * carries the same system prompt and tools (so the cached prefix is read) and the view up to the
   * condensed range, fitted to the window; the task and latest request are copied in verbatim.
   */
  async #summarize(built: BuiltPrompt, keepTail?: number): Promise<boolean> {
    const plan = this.#c.manager.planSummary(this.#source(built), {
      model: built.model,
      system: built.text,
      tools: this.#countedTools(built),
      wireFormat: this.#format(built),
      ...(keepTail !== undefined ? { keepTail } : {}),
    })
    if (!plan) return false
    this.#emit({
      type: "notice",
      message: `context: summarizing ${plan.condensed.length} older messages${plan.masked || plan.dropped ? ` (request fitted: ${plan.masked} results masked, ${plan.dropped} messages left out)` : ""}`,
    })
    // The caller's options alone: a summary request must answer with text, not be compacted by the provider.
    const raw = await this.#send(built, plan.messages, this.#c.encode)
    const acc = new Accumulator({ ts: this.#c.now(), id: this.#id("summary"), model: built.model.id })
    for await (const event of raw) acc.push(event)
    const response = acc.finish().at(-1)!
    this.#usage = addUsage(this.#usage, response.usage)
    const cost = requestCost(response.usage, built.model.prices)?.total
    if (cost !== undefined) this.#cost = (this.#cost ?? 0) + cost
    const text = response.message.content
      .filter((b): b is TextBlock => b.type === "text")
      .map((b) => b.text)
      .join("\n")
    if (!response.complete || !text.trim()) throw new Error(response.errors[0]?.message ?? "the answer had no text")
    this.#c.manager.applySummary(plan, text, this.#c.now())
    // The last usage described the view before the summary: the next fit counts afresh (calibrated).
    this.#lastUsage = undefined
    this.#summaries++
    await this.#c.session.saveState(this.#c.manager.changeLog, this.#files.toJSON())
    return true
  }

  /** The wire format of every request of this loop: the caller's, else the build's (the model's provider's). */
  #format(built: BuiltPrompt): WireFormat {
    return this.#c.format ?? built.wireFormat
  }

  #target(built: BuiltPrompt): CompactionTarget {
    return { format: this.#format(built), provider: built.model.provider }
  }

  /** Whether this request leaves compaction to the provider (the strategy asks, and the format has it). */
  #providerSide(built: BuiltPrompt): boolean {
    return this.#c.providerCompaction !== undefined && PROVIDER_COMPACTION_FORMATS.includes(this.#format(built))
  }

  /** The history a request is made from: with provider-side compaction, the window from its latest compaction item. */
  #source(built: BuiltPrompt): readonly Message[] {
    return this.#providerSide(built) ? compactionWindow(this.#history, this.#target(built)) : this.#history
  }

  /** The encode options of a turn: the caller's, plus the provider-side compaction the strategy asks for. */
  #encodeOptions(built: BuiltPrompt): EncodeOptions | undefined {
    const asked = this.#c.providerCompaction
    if (!asked || !this.#providerSide(built) || this.#c.encode?.contextManagement) return this.#c.encode
    const anthropic = this.#format(built) === "anthropic"
    const trigger = anthropic ? Math.max(ANTHROPIC_MIN_COMPACTION_TRIGGER, asked.trigger) : asked.trigger
    return { ...this.#c.encode, contextManagement: { compaction: { trigger } } }
  }

  /**
   * The conversation moved to a provider that cannot read some compaction items of the history (another provider
   * or wire format made them): they are dropped from the request (with a diagnostic), and the turns they condensed
   * are summarized by promptline's own summary stage, once per item.
   */
  async #foreignFallback(built: BuiltPrompt): Promise<boolean> {
    const target = this.#target(built)
    const at = this.#history.findLastIndex((m) => m.content.some((b) => b.type === "compaction" && !madeBy(b, target)))
    if (at < 0 || at === this.#fallbackAt || this.#signal.aborted) return false
    this.#fallbackAt = at
    const view = this.#c.manager.view(this.#source(built))
    const index = view.findIndex((m) => m.id === this.#history[at]!.id)
    if (index < 0) return false
    const n = foreignCompactions(this.#history, target).length
    this.#emit({
      type: "notice",
      message: `context: ${n} compaction item${n === 1 ? "" : "s"} made by another provider cannot go to ${target.provider} (${target.format}); summarizing the turns ${n === 1 ? "it" : "they"} condensed instead`,
    })
    return this.#summarize(built, Math.max(1, view.length - index - 1)).catch((error: unknown) => {
      const why = error instanceof Error ? error.message : String(error)
      this.#emit({ type: "notice", message: `context: the summary failed (${why}); the turns are sent as recorded` })
      return false
    })
  }

  /** OpenAI's compact endpoint over the request's window: its compaction item is appended as the provider's turn. */
  async #compactEndpoint(built: BuiltPrompt): Promise<boolean> {
    const encoded = this.#encode(built, this.#c.manager.view(this.#source(built)), { ...this.#c.encode, stream: false })
    try {
      const result = await this.#c.compact!(encoded.body as Record<string, unknown>, this.#signal)
      const block = { ...result.compaction, provider: built.model.provider }
      await this.#append("assistant", [block])
      this.#usage = addUsage(this.#usage, { ...ZERO_USAGE, input: result.usage.input, output: result.usage.output })
      this.#lastUsage = undefined
      this.#emit({ type: "notice", message: "context: the provider's compact endpoint condensed the conversation" })
      return true
    } catch (error) {
      if (this.#signal.aborted) return false
      const why = error instanceof Error ? error.message : String(error)
      this.#emit({
        type: "notice",
        message: `context: the compact endpoint failed (${why}); older turns are truncated instead`,
      })
      return false
    }
  }

  /** The tool definitions a request counts: native ones; in the XML dialect they are in the system prompt. */
  #countedTools(built: BuiltPrompt): CountedTool[] {
    return promptCount(built).tools
  }

  #fit(built: BuiltPrompt, overflowTokens: number | undefined): FitResult {
    const source = this.#source(built)
    const view = this.#c.manager.view(source)
    const usage =
      overflowTokens !== undefined ? { promptTokens: overflowTokens, messages: view.length } : this.#lastUsage
    const fit = this.#c.manager.fit(source, {
      model: built.model,
      now: this.#c.now(),
      system: built.text,
      // In the XML dialect the tools are documented inside the system prompt, already counted.
      tools: this.#countedTools(built),
      wireFormat: this.#format(built),
      ...(usage ? { usage } : {}),
    })
    for (const d of fit.diagnostics) this.#emit({ type: "diagnostic", diagnostic: d })
    if (fit.edits.length > 0) this.#emit({ type: "notice", message: contextNote(fit) })
    return fit
  }

  /**
   * A request of this loop in its one wire format (`#format`): the build's prompt with all its tools (the deferred
   * ones too, so every request shares the cached prefix), these messages, these options. Diagnostics are emitted.
   */
  #encode(built: BuiltPrompt, messages: readonly Message[], options: EncodeOptions | undefined) {
    const encoded = encodeRequest(this.#format(built), {
      prompt: {
        text: built.text,
        tools: built.tools,
        deferredTools: built.deferredTools,
        toolCalling: built.toolCalling,
      },
      // A new task after a completed session (or updates after saved results) follows a user message.
      messages: joinUserRuns(messages),
      model: built.model,
      ...(options ? { options } : {}),
    })
    for (const d of encoded.diagnostics) this.#emit({ type: "diagnostic", diagnostic: d })
    return encoded
  }

  /** Encodes a request and sends it; resolves with the provider's events. */
  async #send(
    built: BuiltPrompt,
    messages: readonly Message[],
    options: EncodeOptions | undefined,
  ): Promise<AsyncIterable<StreamEvent>> {
    const encoded = this.#encode(built, messages, options)
    return this.#c.send({
      format: this.#format(built),
      body: encoded.body,
      ...(encoded.headers ? { headers: encoded.headers } : {}),
      model: built.model,
      signal: this.#signal,
      onRetry: (attempt, delayMs, error) => this.#emit({ type: "retry", attempt, delayMs, reason: error.message }),
    })
  }

  /** Encodes, sends and decodes one request, showing text as it arrives; appends nothing. */
  async #stream(built: BuiltPrompt, fit: FitResult): Promise<AssembledResponse> {
    const raw = await this.#send(built, fit.messages, this.#encodeOptions(built))
    const events = built.toolCalling === "xml" ? withXmlToolCalls(raw, { tools: built.tools, turn: this.#turn }) : raw
    const acc = new Accumulator({
      ts: this.#c.now(),
      id: this.#id("assistant"),
      model: built.model.id,
      provider: built.model.provider,
    })
    try {
      for await (const event of events) {
        acc.push(event)
        if (event.type === "text") this.#emit({ type: "text", delta: event.delta })
        else if (event.type === "thinking" && event.delta) this.#emit({ type: "thinking", delta: event.delta })
        if (this.#signal.aborted) break
      }
    } catch (error) {
      if (!this.#signal.aborted) throw error
    }
    const response = acc.finish().at(-1)!
    for (const e of response.errors) {
      if (e.kind !== "context-overflow") this.#emit({ type: "notice", message: `stream: ${e.message}` })
    }
    if (response.message.content.some((b) => b.type === "compaction"))
      this.#emit({
        type: "notice",
        message: "context: the provider compacted the conversation; its compaction item is kept",
      })
    for (const e of response.contextEdits ?? [])
      this.#emit({
        type: "notice",
        message: `context: the provider applied ${e.type}${e.clearedInputTokens !== undefined ? ` (${e.clearedInputTokens.toLocaleString("en-US")} input tokens cleared)` : ""}`,
      })
    return response
  }

  async #done(reason: RunResult["reason"], result?: string, error?: string): Promise<RunResult> {
    const model = this.#c.builder.build(this.#context).model
    const status = {
      completed: "completed",
      answered: "answered",
      max_turns: "max_turns",
      aborted: "interrupted",
      error: "failed",
    } as const
    await this.#c.session.update({ status: status[reason] })
    this.#emit({
      type: "done",
      reason,
      ...(result !== undefined ? { result } : {}),
      ...(error !== undefined ? { error } : {}),
      turns: this.#turn - this.#firstTurn,
      ...figuresOf(this.#usage, model, this.#cost),
    })
    await this.#c.session.flush()
    return {
      reason,
      ...(result !== undefined ? { result } : {}),
      turns: this.#turn - this.#firstTurn,
      usage: this.#usage,
      history: this.#history,
      summaries: this.#summaries,
    }
  }
}
