import type { BuiltInShape } from "../providers/formats.js"
import { formatModule } from "../providers/formats.js"
import { responseObject, responsesUsageObject } from "../providers/openai-responses/response-object.js"
import { anthropicFormat } from "./anthropic.js"
import type { CacheSimulation } from "./cache-simulation.js"
import type { CompactionSimulation } from "./compaction-simulation.js"
import { checkTurn } from "./expect.js"
import type { Failure, FormatHandler, RouteInfo, TurnRender } from "./format.js"
import { geminiFormat } from "./gemini.js"
import { moduleHandler } from "./module-handler.js"
import { openAIChatFormat } from "./openai-chat.js"
import { openAIResponsesFormat, responseId } from "./openai-responses.js"
import { resolveTurn } from "./resolve.js"
import { compilePattern, type ReplayFault, type ReplayScript, type ScriptTurn } from "./script.js"
import type { ReplayFormat, RequestView } from "./view.js"

/** The handler of each built-in wire shape (a format that extends one is replayed by that one's). */
export const FORMAT_HANDLERS: Readonly<Record<BuiltInShape, FormatHandler>> = {
  anthropic: anthropicFormat,
  "openai-chat": openAIChatFormat,
  "openai-responses": openAIResponsesFormat,
  gemini: geminiFormat,
}

/** The handler of a wire shape: a built-in one's, or one made from a registered format's module. */
export function handlerOf(format: ReplayFormat): FormatHandler {
  return Object.hasOwn(FORMAT_HANDLERS, format)
    ? FORMAT_HANDLERS[format as BuiltInShape]
    : moduleHandler(formatModule(format))
}

/** How a request was answered. */
export type RequestOutcome =
  | "answered"
  | "fault"
  | "rejected"
  | "diverged"
  | "exhausted"
  | "warmup"
  | "not-found"
  | "pending"

/** One request the server received, as it arrived, and what it got back. */
export interface RecordedRequest {
  /** 0-based arrival order. */
  seq: number
  transport: "http" | "websocket"
  method: string
  /** Path without the query string. */
  path: string
  query: string
  format?: ReplayFormat
  /** Request headers; credentials are redacted. */
  headers: Record<string, string>
  /** The parsed JSON body, or the raw text when it was not JSON. */
  body: unknown
  /** The script turn the request asked for (0-based). */
  turn?: number
  outcome: RequestOutcome
  status: number
  problems: string[]
  /** True when the request was a summarizing request, answered with the script's summary. */
  summary?: boolean
  /** True for a `POST /v1/responses/compact` request, answered with a compaction item. */
  compact?: boolean
  /** True when the compaction simulation opened the answer with a compaction item. */
  compacted?: boolean
  /** For a token-counting request: the count answered. */
  count?: number
  /**
   * Top-level body fields the format's current API does not define: accepted and ignored, as the real APIs
   * pass over what they do not use, and listed here so a test can see them. Absent when there are none.
   */
  unknownFields?: string[]
}

/** A request that left the scripted path. */
export interface Divergence {
  seq: number
  turn: number
  problems: string[]
}

/** What the transport must send back. */
export type Answer =
  | { type: "turn"; handler: FormatHandler; render: TurnRender; responseId?: string }
  | { type: "disconnect"; handler: FormatHandler; render: TurnRender }
  | { type: "failure"; handler: FormatHandler; failure: Failure }
  /** A Responses `generate: false` warm-up: an empty response that only prepares state. */
  | { type: "warmup"; handler: FormatHandler; events: unknown[]; responseId: string }

/** Options of the replay state machine. */
export interface ReplayerOptions {
  /** Unix seconds stamped into `created` fields (fixed, so streams are byte-identical across runs). */
  created?: number
  /** Approximate characters per streamed delta. */
  chunkSize?: number
  /** Bills each answer's input, cache reads and writes from this prompt-cache simulation (scripted usage wins). */
  cacheSimulation?: CacheSimulation
  /** Opens a turn's answer with a compaction item when the request asks for one and reaches its trigger. */
  compactionSimulation?: CompactionSimulation
  /** After the last turn, start again from the first (a load test's upstream answers every request). */
  loop?: boolean
  /** Keep only the most recent this many requests in `requests` (at least 1; all by default), for long loads. */
  keepRequests?: number
}

/** Where the indexes of summary answers start (far from any turn's). */
const SUMMARY_INDEX = 1_000_000

/** Copies headers, replacing credentials with `[redacted]` (shared with the traces: src/redact.ts). */
export { redactHeaders } from "../redact.js"

const FAULT_MESSAGES: Record<Exclude<ReplayFault["kind"], "disconnect">, string> = {
  "rate-limit": "Rate limit reached for requests (injected by the replay script).",
  "server-error": "The server had an error while processing your request (injected by the replay script).",
  overloaded: "The service is overloaded (injected by the replay script).",
  "context-overflow": "The prompt is too long (injected by the replay script).",
}

/**
 * The replay state: which turn comes next, which faults are still to be served, what was asked.
 * Transports (HTTP, WebSocket) feed it parsed requests and write back what it answers.
 */
export class Replayer {
  readonly requests: RecordedRequest[] = []
  readonly divergences: Divergence[] = []
  private next = 0
  private readonly faultsServed = new Map<number, number>()
  private readonly injected = new Map<number, ReplayFault[]>()
  /** Tool names by the call ids the server has sent, so results can be matched to their tool. */
  private readonly names = new Map<string, string>()
  /** Responses API ids that a later request may continue from (store was not false). */
  private readonly stored = new Set<string>()
  private warmups = 0
  /** Summarizing requests answered so far. */
  private summaries = 0
  private readonly created: number
  private readonly chunkSize: number
  private readonly simulation: CacheSimulation | undefined
  private readonly compaction: CompactionSimulation | undefined
  private readonly loop: boolean
  private readonly keep: number
  /** Requests received so far (`requests` may keep fewer). */
  private received = 0

  constructor(
    readonly script: ReplayScript,
    options: ReplayerOptions = {},
  ) {
    this.created = options.created ?? 1_767_225_600
    this.chunkSize = options.chunkSize ?? 24
    this.simulation = options.cacheSimulation
    this.compaction = options.compactionSimulation
    this.loop = options.loop === true
    this.keep = Math.max(1, options.keepRequests ?? Number.POSITIVE_INFINITY)
  }

  /** Turns answered so far. */
  get served(): number {
    return this.next
  }

  /** Turns not answered yet. */
  get remaining(): number {
    return Math.max(0, this.script.turns.length - this.next)
  }

  /** Serves `fault` once on turn `turn` (0-based), after the script's own faults for that turn. */
  injectFault(turn: number, fault: ReplayFault): void {
    this.injected.set(turn, [...(this.injected.get(turn) ?? []), fault])
  }

  /** Adds a request to the record; the caller fills in how it was answered. */
  record(entry: Omit<RecordedRequest, "seq" | "outcome" | "status" | "problems">): RecordedRequest {
    const recorded: RecordedRequest = {
      ...entry,
      seq: this.received++,
      outcome: "pending",
      status: 0,
      problems: [],
    }
    this.requests.push(recorded)
    if (this.requests.length > this.keep) this.requests.splice(0, this.requests.length - this.keep)
    return recorded
  }

  /** Answers one parsed request body; `connectionLast` is the WebSocket connection's last response id. */
  handle(
    record: RecordedRequest,
    format: ReplayFormat,
    body: Record<string, unknown>,
    route: RouteInfo,
    connectionLast?: string,
  ): Answer {
    const handler = handlerOf(format)
    record.format = format
    const unknown = handler.unknownFields(body)
    if (unknown.length > 0) record.unknownFields = unknown
    const fail = (outcome: RequestOutcome, failure: Failure, problems: string[]): Answer => {
      record.outcome = outcome
      record.problems = problems
      record.status = handler.error(failure).status
      return { type: "failure", handler, failure }
    }
    const problems = handler.check(body)
    if (problems.length > 0)
      return fail("rejected", { kind: "invalid-request", message: problems.join("; ") }, problems)
    const view = handler.view(body, this.names, route)
    const previous = view.previousResponseId
    if (previous !== undefined && !this.stored.has(previous) && previous !== connectionLast) {
      const message = `Previous response with id '${previous}' not found.`
      return fail(
        "rejected",
        { kind: "invalid-request", message, code: "previous_response_not_found", param: "previous_response_id" },
        [message],
      )
    }
    if (format === "openai-responses" && body.generate === false) return this.warmup(record, body, view)
    const summary = this.script.summary
    if (summary && compilePattern(summary.when).test(view.lastTurn.text)) {
      return this.summaryAnswer(record, view, body, handler, summary.text)
    }
    const index = this.next
    record.turn = index
    const turn = this.turnAt(index)
    if (turn === undefined) {
      const message = `replay script exhausted: all ${this.script.turns.length} turns were already answered`
      this.divergences.push({ seq: record.seq, turn: index, problems: [message] })
      return fail("exhausted", { kind: "exhausted", message }, [message])
    }
    const render = this.render(index, view, body, handler)
    if (render.turn.compaction && !this.turnAt(index)!.compaction) record.compacted = true
    const fault = this.takeFault(index)
    if (fault?.kind === "disconnect") {
      record.outcome = "fault"
      record.status = 200
      return { type: "disconnect", handler, render }
    }
    if (fault !== undefined) {
      const failure: Failure = { kind: fault.kind, message: FAULT_MESSAGES[fault.kind] }
      if (fault.kind === "rate-limit") failure.retryAfter = fault.retryAfter
      return fail("fault", failure, [])
    }
    const divergence = checkTurn(turn, view)
    if (divergence.length > 0) {
      this.divergences.push({ seq: record.seq, turn: index, problems: divergence })
      const message = `replay diverged at turn ${index + 1}: ${divergence.join("; ")}`
      return fail("diverged", { kind: "diverged", message }, divergence)
    }
    this.next++
    for (const call of render.turn.calls) this.names.set(call.id, call.name)
    record.outcome = "answered"
    record.status = 200
    if (format !== "openai-responses") return { type: "turn", handler, render }
    const id = responseId(render.turn)
    if (view.store !== false) this.stored.add(id)
    return { type: "turn", handler, render, responseId: id }
  }

  /** Answers a summarizing request with the script's summary text; no turn is used. */
  private summaryAnswer(
    record: RecordedRequest,
    view: RequestView,
    body: Record<string, unknown>,
    handler: FormatHandler,
    text: string,
  ): Answer {
    // Ids apart from the turns' (the turn index names response and call ids).
    const index = SUMMARY_INDEX + this.summaries++
    const turn = resolveTurn(this.billed({ text }, view, body), index, {
      dialect: view.dialect,
      callIdPrefix: handler.callIdPrefix,
      requestChars: JSON.stringify(body).length,
    })
    record.outcome = "answered"
    record.status = 200
    record.summary = true
    const render: TurnRender = { turn, view, body, created: this.created, chunkSize: this.chunkSize }
    if (view.format !== "openai-responses") return { type: "turn", handler, render }
    const id = responseId(turn)
    if (view.store !== false) this.stored.add(id)
    return { type: "turn", handler, render, responseId: id }
  }

  private warmup(record: RecordedRequest, body: Record<string, unknown>, view: RequestView): Answer {
    const id = `resp_replay_warmup_${this.warmups++}`
    if (view.store !== false) this.stored.add(id)
    record.outcome = "warmup"
    record.status = 200
    const usage = responsesUsageObject({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 })
    const model = typeof body.model === "string" ? body.model : ""
    const state = (status: "in_progress" | "completed") => ({
      status,
      output: [],
      usage: status === "completed" ? usage : null,
    })
    const events = [
      { type: "response.created", response: responseObject(id, model, body, this.created, state("in_progress")) },
      { type: "response.completed", response: responseObject(id, model, body, this.created, state("completed")) },
    ].map((event, sequence_number) => ({ ...event, sequence_number }))
    return { type: "warmup", handler: FORMAT_HANDLERS["openai-responses"], events, responseId: id }
  }

  private render(index: number, view: RequestView, body: Record<string, unknown>, handler: FormatHandler): TurnRender {
    const scripted = this.turnAt(index)!
    // A scripted compaction item wins; otherwise the simulation decides whether the provider would compact.
    const compaction = scripted.compaction ? undefined : this.compaction?.compact(view.format, body, view.model)
    const turn = resolveTurn(this.billed(compaction ? { ...scripted, compaction } : scripted, view, body), index, {
      dialect: view.dialect,
      callIdPrefix: handler.callIdPrefix,
      requestChars: JSON.stringify(body).length,
    })
    return { turn, view, body, created: this.created, chunkSize: this.chunkSize }
  }

  /** The script turn that answers the `index`-th turn request (the script starts over when it loops). */
  private turnAt(index: number): ScriptTurn | undefined {
    const turns = this.script.turns
    return turns[this.loop ? index % turns.length : index]
  }

  /** The turn with the cache simulation's usage under its own scripted figures (the turn as is without one). */
  private billed(turn: ScriptTurn, view: RequestView, body: Record<string, unknown>): ScriptTurn {
    if (!this.simulation) return turn
    const usage = this.simulation.bill(view.format, body, view.model)
    return { ...turn, usage: { ...usage, ...turn.usage } }
  }

  private takeFault(turn: number): ReplayFault | undefined {
    const faults = [...(this.turnAt(turn)?.faults ?? []), ...(this.injected.get(turn) ?? [])]
    const served = this.faultsServed.get(turn) ?? 0
    const fault = faults[served]
    if (fault !== undefined) this.faultsServed.set(turn, served + 1)
    return fault
  }
}
