import type { Block, Message, TextBlock, ThinkingBlock, ToolUseBlock } from "../history/message.js"
import { isErrorLevel } from "./completeness.js"
import type { AppliedContextEdit, DecodeStats, StopReason, StreamErrorEvent, StreamEvent, Usage } from "./stream.js"

/** What the assembled message needs that the stream does not carry. */
export interface AccumulateOptions {
  /** The message timestamp (milliseconds since the epoch), supplied by the caller. */
  ts: number
  /** The message id; default: the provider's response id, else `assistant-<ts>`. */
  id?: string
  /** The model id recorded on thinking blocks and signed tool calls; default: the model the stream reports. */
  model?: string
  /** The provider recorded on compaction items (the catalog's provider id of the model asked). */
  provider?: string
}

/** One response, assembled: the assistant message, usage, why it stopped, and what went wrong. */
export interface AssembledResponse {
  message: Message
  usage: Usage
  /** `error` when the stream failed or ended without a stop. */
  stopReason: StopReason
  /** The provider's own stop reason, when it gave one. */
  rawStopReason?: string
  /** The provider's explanation of its stop (a refusal's explanation, Gemini's finishMessage), when it gave one. */
  stopMessage?: string
  /** The provider's response id. */
  responseId?: string
  /** The model the provider says answered. */
  model?: string
  /** The context-management edits the provider reported applying to the request. */
  contextEdits?: AppliedContextEdit[]
  /** Every error event, in order (invalid tool arguments, cut-off calls, provider errors, truncation). */
  errors: StreamErrorEvent[]
  /**
   * True when the response arrived whole: its format's completeness rule held, no error-level error
   * (see isErrorLevel), and the stop is not `error`. When false, `stopReason` is `error` and `errors`
   * holds at least one error-level error saying why.
   */
  complete: boolean
  counters: {
    /** Events consumed for this response. */
    events: number
    /** Responses abandoned because the provider restarted (a spliced stream) before this one. */
    restarts: number
    /** Deltas or ends for tool calls that never started: ignored. */
    orphans: number
  }
  /** The decoder's counters (unknown event types, pings, ...), when decoded from bytes. */
  stats?: DecodeStats
}

interface Draft {
  content: Block[]
  calls: Map<string, ToolUseBlock>
  ended: Set<string>
  textIndex: number | undefined
  thinkingIndex: number | undefined
  /** Thinking blocks by stream index, so a late signature finds its block (Responses reasoning items). */
  thinkingByIndex: Map<number, ThinkingBlock>
  usage: Usage
  stop?: { reason: StopReason; raw?: string; message?: string }
  errors: StreamErrorEvent[]
  responseId?: string
  model?: string
  contextEdits?: AppliedContextEdit[]
  events: number
  restarts: number
  orphans: number
}

const emptyDraft = (restarts = 0): Draft => ({
  content: [],
  calls: new Map(),
  ended: new Set(),
  textIndex: undefined,
  thinkingIndex: undefined,
  thinkingByIndex: new Map(),
  usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  errors: [],
  events: 0,
  restarts,
  orphans: 0,
})

/**
 * Builds assistant messages from stream events, one event at a time. Consecutive text (or
 * thinking) deltas join into one block until another kind of event or a new `index` comes; a
 * thinking block that already has a signature is not extended. Tool calls keep the position where
 * they started; a call that never ended (cut off) is left out (its error event keeps the text).
 * A `start` while a response is open discards it (a provider restart); a `start` after a `stop`
 * begins the next response (recordings of several turns).
 */
export class Accumulator {
  readonly #options: AccumulateOptions
  readonly #done: AssembledResponse[] = []
  #draft: Draft = emptyDraft()

  constructor(options: AccumulateOptions) {
    this.#options = options
  }

  /** Consumes one event. */
  push(event: StreamEvent): void {
    const d = this.#draft
    d.events++
    switch (event.type) {
      case "text": {
        const last = d.content[d.content.length - 1]
        if (last?.type === "text" && d.textIndex === event.index) (last as TextBlock).text += event.delta
        else {
          d.content.push({ type: "text", text: event.delta })
          d.textIndex = event.index
        }
        return
      }
      case "thinking":
        this.#thinking(d, event)
        return
      case "tool_call_start": {
        const block: ToolUseBlock = { type: "tool_use", id: event.id, name: event.name, input: {} }
        d.calls.set(event.id, block)
        d.content.push(block)
        return
      }
      case "tool_call_delta":
        if (!d.calls.has(event.id)) d.orphans++
        return
      case "tool_call_end": {
        const block = d.calls.get(event.id)
        if (!block) {
          d.orphans++
          return
        }
        block.input = event.input
        if (event.signature) {
          block.signature = event.signature
          const model = this.#options.model ?? d.model
          if (model) block.model = model
        }
        d.ended.add(event.id)
        return
      }
      case "redacted_thinking": {
        const model = this.#options.model ?? d.model
        d.content.push(
          model
            ? { type: "redacted_thinking", data: event.data, model }
            : { type: "redacted_thinking", data: event.data },
        )
        return
      }
      case "compaction": {
        const { type: _, ...item } = event
        const provider = this.#options.provider
        d.content.push({ type: "compaction", ...item, ...(provider ? { provider } : {}) })
        return
      }
      case "tool_search": {
        const { type: _, ...search } = event
        d.content.push({ type: "tool_search", ...search })
        return
      }
      case "context_edits":
        d.contextEdits = [...(d.contextEdits ?? []), ...event.edits]
        return
      case "usage": {
        const { type: _, ...usage } = event
        d.usage = usage
        return
      }
      case "stop": {
        const { type: _, ...stop } = event
        d.stop = stop
        return
      }
      case "error":
        d.errors.push(event)
        return
      case "start":
        this.#start(d, event)
        return
    }
  }

  /** Every response seen, the last one finished as it stands (partial if it never stopped). */
  finish(): AssembledResponse[] {
    const all = [...this.#done]
    if (this.#draft.events > 0 || all.length === 0) all.push(this.#assemble(this.#draft, all.length))
    return all
  }

  #start(d: Draft, event: Extract<StreamEvent, { type: "start" }>): void {
    if (d.stop !== undefined) {
      this.#done.push(this.#assemble(d, this.#done.length))
      this.#draft = emptyDraft()
    } else if (d.content.length > 0) {
      // The provider restarted the response: the partial one is dropped, its errors with it.
      this.#draft = emptyDraft(d.restarts + 1)
    }
    const next = this.#draft
    next.events = Math.max(next.events, 1)
    if (event.id) next.responseId = event.id
    if (event.model) next.model = event.model
  }

  #thinking(d: Draft, event: Extract<StreamEvent, { type: "thinking" }>): void {
    const last = d.content[d.content.length - 1]
    const model = this.#options.model ?? d.model
    // A signature (and id) that arrives after other blocks belongs to the earlier block of its index.
    const earlier = event.index === undefined ? undefined : d.thinkingByIndex.get(event.index)
    if (event.delta === "" && earlier && earlier !== last && !earlier.signature && (event.signature || event.id)) {
      if (event.signature) earlier.signature = event.signature
      if (event.id) earlier.id = event.id
      return
    }
    const joins =
      last?.type === "thinking" &&
      d.thinkingIndex === event.index &&
      !((last as ThinkingBlock).signature && (event.delta !== "" || event.signature))
    if (joins) {
      const block = last as ThinkingBlock
      block.text += event.delta
      if (event.signature) block.signature = event.signature
      if (event.id) block.id = event.id
      return
    }
    const block: ThinkingBlock = { type: "thinking", text: event.delta }
    if (event.signature) block.signature = event.signature
    if (event.id) block.id = event.id
    if (model) block.model = model
    d.content.push(block)
    d.thinkingIndex = event.index
    if (event.index !== undefined) d.thinkingByIndex.set(event.index, block)
  }

  #assemble(d: Draft, n: number): AssembledResponse {
    const content = d.content.filter((b) => b.type !== "tool_use" || d.ended.has(b.id))
    const base = this.#options.id ?? d.responseId ?? `assistant-${this.#options.ts}`
    const id = this.#options.id && n > 0 ? `${base}-${n}` : base
    // One definition of complete (src/providers/completeness.ts); events from any source are held to it.
    const errors = [...d.errors]
    const failed = errors.some(isErrorLevel)
    const complete = d.stop !== undefined && d.stop.reason !== "error" && !failed
    if (!complete && !failed) {
      errors.push(
        d.stop === undefined
          ? { type: "error", kind: "truncated", message: "the events ended before a stop" }
          : { type: "error", kind: "server", message: `the provider stopped with ${d.stop.raw ?? "an error"}` },
      )
    }
    const result: AssembledResponse = {
      message: { id, role: "assistant", content, ts: this.#options.ts },
      usage: d.usage,
      stopReason: complete ? d.stop!.reason : "error",
      errors,
      complete,
      counters: { events: d.events, restarts: d.restarts, orphans: d.orphans },
    }
    if (d.stop?.raw !== undefined) result.rawStopReason = d.stop.raw
    if (complete && d.stop?.message) result.stopMessage = d.stop.message
    if (d.responseId) result.responseId = d.responseId
    if (d.model) result.model = d.model
    if (d.contextEdits) result.contextEdits = d.contextEdits
    return result
  }
}

/** Assembles every response in an event stream (a real body holds one; a recording may hold several). */
export async function accumulateAll(
  events: AsyncIterable<StreamEvent> | Iterable<StreamEvent>,
  options: AccumulateOptions,
): Promise<AssembledResponse[]> {
  const acc = new Accumulator(options)
  for await (const event of events) acc.push(event)
  return acc.finish()
}

/** Assembles the (last) response of an event stream. */
export async function accumulate(
  events: AsyncIterable<StreamEvent> | Iterable<StreamEvent>,
  options: AccumulateOptions,
): Promise<AssembledResponse> {
  const all = await accumulateAll(events, options)
  return all[all.length - 1]!
}
