import { InstructionTracker } from "../context/activate.js"
import type { PromptContext } from "../context/prompt-context.js"
import type { ContextManager, FitResult } from "../history/context-manager.js"
import { FileTracker, renderChangedFiles } from "../history/file-tracker.js"
import type { Block, Message, TextBlock } from "../history/message.js"
import { toolUsesOf } from "../history/message.js"
import type { ModelInfo, WireFormat } from "../models/types.js"
import type { BuiltPrompt, PromptBuilder } from "../prompt/builder.js"
import { Accumulator } from "../providers/accumulate.js"
import { type EncodeOptions, encodeRequest } from "../providers/encode.js"
import { ProviderError } from "../providers/errors.js"
import type { StreamEvent, Usage } from "../providers/stream.js"
import { withXmlToolCalls } from "../tools/xml-parser.js"
import type { ApprovalPolicy, ConfirmCall } from "./approval.js"
import type { AgentEvent } from "./events.js"
import type { ExecutorEnv } from "./executors/index.js"
import { addUsage, figuresOf, ZERO_USAGE } from "./figures.js"
import type { Session } from "./session.js"
import { runToolCalls } from "./tool-runner.js"

/** One request to the provider; resolves with its stream of events (retries happen inside). */
export type SendRequest = (request: {
  format: WireFormat
  body: unknown
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
  now: () => number
  /** Today as YYYY-MM-DD; checked every turn so a session that runs past midnight says so. */
  today: () => string
  /** The wire format to speak; default: the model's provider's (`BuiltPrompt.wireFormat`). */
  format?: WireFormat
  encode?: EncodeOptions
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
}

/** One model turn as the loop needs it. */
interface TurnResponse {
  message: Message
  stopReason: string
  errors: { kind?: string; message: string; toolCallId?: string; raw?: string }[]
}

const NUDGE =
  "You answered without calling a tool. If the task is done, call the completion tool with the result; otherwise continue with the next tool call."

/** The biggest number in an overflow message is the prompt size the provider counted. */
function reportedTokens(message: string): number | undefined {
  const numbers = [...message.matchAll(/\d[\d,]{2,}/g)].map((m) => Number(m[0].replace(/,/g, "")))
  const max = Math.max(0, ...numbers)
  return max >= 1000 ? max : undefined
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
  #turn = 0
  #ids = 0

  constructor(config: AgentConfig) {
    this.#c = config
    this.#context = config.context
    this.#history = [...(config.history ?? [])]
    this.#files = config.files ?? new FileTracker(config.context.cwd)
    this.#instructions = new InstructionTracker(config.context)
    this.#instructions.markGiven(config.session.meta.instructionsGiven)
    this.#signal = config.signal ?? new AbortController().signal
    this.#turn = this.#history.filter((m) => m.role === "assistant").length
  }

  #emit(event: AgentEvent): void {
    this.#c.onEvent?.(event)
    void this.#c.session.appendEvent(event)
  }

  #id(role: string): string {
    return `${this.#c.session.id}-${role}-${this.#history.length}-${++this.#ids}`
  }

  async #append(role: Message["role"], content: Block[]): Promise<Message> {
    const message: Message = { id: this.#id(role), role, content, ts: this.#c.now() }
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
    if (task) blocks.push({ type: "text", text: task })
    else if (last.role === "assistant")
      blocks.push({ type: "text", text: "The session was resumed. Continue the task." })
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
      out.push({ type: "text", text: `<environment_update>Today's date is now ${today}.</environment_update>` })
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
    for (;;) {
      if (this.#signal.aborted) return this.#done("aborted")
      if (this.#turn >= this.#c.maxTurns) return this.#done("max_turns")
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
        if (!nudged && built.tools.some((t) => t.kind === "complete")) {
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
      const invalid = new Map(
        response.errors
          .filter((e) => e.kind === "invalid-arguments" && e.toolCallId)
          .map((e) => [e.toolCallId!, e.raw ?? ""]),
      )
      const round = await runToolCalls(calls, {
        invalidArguments: invalid,
        context: this.#context,
        tools: built.tools,
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
          extra.push({ type: "text", text: "<environment_update>Mode: act. Carry out the plan.</environment_update>" })
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

  /** One model turn: fit, encode, send, decode; a context overflow truncates harder and retries once. */
  async #request(built: BuiltPrompt): Promise<TurnResponse> {
    let overflow: number | undefined
    for (let attempt = 0; ; attempt++) {
      const fit = this.#fit(built, overflow)
      let response: TurnResponse | undefined
      let message: string
      try {
        response = await this.#stream(built, fit)
        const overflowed = response.errors.find((e) => e.kind === "context-overflow")
        if (!overflowed || response.message.content.length > 0) return response
        message = overflowed.message
      } catch (error) {
        if (!(error instanceof ProviderError && error.kind === "context-overflow")) throw error
        message = error.message
      }
      // A context overflow (an HTTP error, or an error event before any content): cut harder, retry once.
      if (attempt > 0) {
        if (response) return response
        throw new ProviderError("context-overflow", message)
      }
      overflow = reportedTokens(message) ?? built.model.contextWindow + 1
      this.#emit({
        type: "notice",
        message: "the provider reported a context overflow; truncating harder and retrying",
      })
    }
  }

  #fit(built: BuiltPrompt, overflowTokens: number | undefined): FitResult {
    const view = this.#c.manager.view(this.#history)
    const usage =
      overflowTokens !== undefined ? { promptTokens: overflowTokens, messages: view.length } : this.#lastUsage
    const fit = this.#c.manager.fit(this.#history, {
      model: built.model,
      now: this.#c.now(),
      system: built.text,
      tools: built.tools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters })),
      wireFormat: this.#c.format ?? built.wireFormat,
      ...(usage ? { usage } : {}),
    })
    for (const d of fit.diagnostics) this.#emit({ type: "diagnostic", diagnostic: d })
    for (const e of fit.edits) this.#emit({ type: "notice", message: `context ${e.kind}` })
    return fit
  }

  async #stream(built: BuiltPrompt, fit: FitResult): Promise<TurnResponse> {
    const format = this.#c.format ?? built.wireFormat
    const encoded = encodeRequest(format, {
      prompt: { text: built.text, tools: built.tools, toolCalling: built.toolCalling },
      messages: fit.messages,
      model: built.model,
      ...(this.#c.encode ? { options: this.#c.encode } : {}),
    })
    for (const d of encoded.diagnostics) this.#emit({ type: "diagnostic", diagnostic: d })
    const raw = await this.#c.send({
      format,
      body: encoded.body,
      model: built.model,
      signal: this.#signal,
      onRetry: (attempt, delayMs, error) => this.#emit({ type: "retry", attempt, delayMs, reason: error.message }),
    })
    const events = built.toolCalling === "xml" ? withXmlToolCalls(raw, { tools: built.tools, turn: this.#turn }) : raw
    const acc = new Accumulator({ ts: this.#c.now(), id: this.#id("assistant"), model: built.model.id })
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
    const overflowOnly =
      response.message.content.length === 0 && response.errors.some((e) => e.kind === "context-overflow")
    if (!overflowOnly) {
      const message = { ...response.message, ts: this.#c.now() }
      this.#history.push(message)
      await this.#c.session.appendMessage(message)
      this.#usage = addUsage(this.#usage, response.usage)
      const prompt = response.usage.input + response.usage.cacheRead + response.usage.cacheWrite
      if (prompt > 0) this.#lastUsage = { promptTokens: prompt, messages: fit.messages.length }
      this.#emit({
        type: "turn_end",
        turn: this.#turn,
        stopReason: response.stopReason,
        ...figuresOf(response.usage, built.model),
      })
    }
    return { message: response.message, stopReason: response.stopReason, errors: response.errors }
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
      turns: this.#turn,
      ...figuresOf(this.#usage, model),
    })
    await this.#c.session.flush()
    return {
      reason,
      ...(result !== undefined ? { result } : {}),
      turns: this.#turn,
      usage: this.#usage,
      history: this.#history,
    }
  }
}
