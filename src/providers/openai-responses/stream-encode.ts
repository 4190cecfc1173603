/**
 * Normalized stream events written as the Responses API streams them: `response.created` and `in_progress`,
 * one output item per reasoning block, text block and tool call (added, deltas, done), and `response.completed`
 * (or `incomplete` / `failed`) with the usage, every event numbered by `sequence_number`, as server-sent events.
 *
 * An item is closed (`output_item.done`) only when it is whole. When the response fails, the items still being
 * written are not closed: the `error` event and `response.failed` follow, and the failed response lists them with
 * `status: "incomplete"`. Clients such as Codex keep every item an `output_item.done` carries as finished, whatever
 * its status says, so a partial message or call must never arrive in one. A response that stops early
 * (`incomplete`: the output limit, a refusal) closes its open items as `incomplete`, as OpenAI does.
 */
import { isErrorLevel } from "../completeness.js"
import type { StreamEvent, Usage } from "../stream.js"
import type { StreamEncodeOptions, StreamEncoder } from "../types.js"
import { openAIErrorFields } from "./errors.js"
import { type ResponseState, responseObject, responsesUsageObject } from "./response-object.js"

/** Responses stream options: the request body, whose settings the response object echoes. */
export interface ResponsesStreamEncodeOptions extends StreamEncodeOptions {
  request?: Record<string, unknown>
}

/** The text or reasoning item being written; `from` is the events' `index`, `upstream` the reasoning id they named. */
interface Open {
  kind: "message" | "reasoning"
  index: number
  id: string
  text: string
  from?: number
  upstream?: string
  signature?: string
}

interface Call {
  index: number
  itemId: string
  callId: string
  name: string
  args: string
}

/** The response id the encoder uses: the option, the upstream's own `resp_` id, or one derived from it. */
function responseIdOf(options: ResponsesStreamEncodeOptions, upstream: string | undefined): string {
  if (options.id) return options.id
  if (upstream?.startsWith("resp_")) return upstream
  return `resp_${(upstream ?? "promptline").replace(/[^A-Za-z0-9_]/g, "_")}`
}

/** Writes one response's events; also collects the event payloads (for WebSocket frames and whole answers). */
export class ResponsesStreamEncoder implements StreamEncoder {
  /** Every payload written so far, in order. */
  readonly payloads: Record<string, unknown>[] = []
  /** The final `response` object, once the response ended. */
  final: Record<string, unknown> | undefined
  #id = ""
  #started = false
  #done = false
  #output: unknown[] = []
  #open: Open | undefined
  #calls = new Map<string, Call>()
  #usage: Usage | undefined
  #error: { code: string; message: string } | undefined
  #written: string[] = []

  constructor(readonly options: ResponsesStreamEncodeOptions) {}

  push(event: StreamEvent): string {
    this.#written = []
    if (this.#done) return ""
    if (event.type === "start") this.#start(event.id)
    else {
      this.#start(undefined)
      this.#event(event)
    }
    return this.#written.join("")
  }

  /** Ends the response; one that never stopped was cut short, and fails. */
  end(): string {
    this.#written = []
    if (!this.#done) {
      this.#start(undefined)
      if (!this.#error)
        this.#event({ type: "error", kind: "truncated", message: "the response ended before it was complete" })
      this.#finish("failed")
    }
    return this.#written.join("")
  }

  #event(event: Exclude<StreamEvent, { type: "start" }>): void {
    // After a failure only the usage and the stop still count: nothing more of the answer is written.
    if (this.#error && event.type !== "usage" && event.type !== "stop") return
    switch (event.type) {
      case "text":
        if (event.delta !== "" || this.#open?.kind === "message") this.#delta("message", event.delta, event.index)
        return
      case "thinking": {
        const item = this.#delta("reasoning", event.delta, event.index, event.id)
        // A signature ends its block (nothing extends a signed block): the item is whole.
        if (event.signature !== undefined) {
          item.signature = event.signature
          this.#closeOpen()
        }
        return
      }
      case "redacted_thinking": {
        // The nearest form: a reasoning item with only encrypted content.
        this.#closeOpen()
        const item = { id: this.#itemId("rs"), type: "reasoning", summary: [] }
        const index = this.#output.length
        this.#emit({ type: "response.output_item.added", output_index: index, item })
        this.#item(index, { ...item, encrypted_content: event.data })
        return
      }
      case "compaction": {
        // The item whole, as the server adds it when it compacts.
        this.#closeOpen()
        const item = { id: event.id ?? this.#itemId("cmp"), type: "compaction" }
        const index = this.#output.length
        this.#emit({ type: "response.output_item.added", output_index: index, item })
        this.#item(index, { ...item, encrypted_content: event.payload ?? "" })
        return
      }
      case "tool_call_start":
        this.#callStart(event.id, event.name)
        return
      case "tool_call_delta": {
        const call = this.#calls.get(event.id) ?? this.#callStart(event.id, "")
        call.args += event.argsDelta
        const at = { item_id: call.itemId, output_index: call.index }
        this.#emit({ type: "response.function_call_arguments.delta", ...at, delta: event.argsDelta })
        return
      }
      case "tool_call_end": {
        const call = this.#calls.get(event.id) ?? this.#callStart(event.id, "")
        const at = { item_id: call.itemId, output_index: call.index }
        if (call.args === "") {
          call.args = JSON.stringify(event.input ?? {})
          this.#emit({ type: "response.function_call_arguments.delta", ...at, delta: call.args })
        }
        this.#emit({ type: "response.function_call_arguments.done", ...at, arguments: call.args })
        this.#calls.delete(event.id)
        this.#item(call.index, this.#callItem(call, "completed"))
        return
      }
      case "usage": {
        const { type: _type, ...usage } = event
        this.#usage = usage
        return
      }
      case "stop":
        // A refusal is reported as OpenAI reports a filtered answer: incomplete, `content_filter`.
        if (event.reason === "error" || this.#error) {
          if (!this.#error)
            this.#event({ type: "error", kind: "server", message: event.message ?? "the response failed" })
          this.#finish("failed")
        } else if (event.reason === "length") this.#finish("incomplete", "max_output_tokens")
        else if (event.reason === "refusal") this.#finish("incomplete", "content_filter")
        else this.#finish("completed")
        return
      case "error": {
        // Warnings (a call's arguments that are not JSON, a skipped payload) leave the response whole.
        if (!isErrorLevel(event) || this.#error) return
        // The items being written are left open: a partial item is never closed as if it were whole.
        this.#abandon()
        const fields = openAIErrorFields(event.kind ?? "server", event.message, { retryAfterMs: event.retryAfterMs })
        this.#error = { code: fields.code ?? fields.type, message: fields.message }
        this.#emit({ type: "error", error: fields })
      }
    }
  }

  #start(upstream: string | undefined): void {
    if (this.#started) return
    this.#started = true
    this.#id = responseIdOf(this.options, upstream)
    const state = (): ResponseState => ({ status: "in_progress", output: [], usage: null })
    this.#emit({ type: "response.created", response: this.#response(state()) })
    this.#emit({ type: "response.in_progress", response: this.#response(state()) })
  }

  /** Text or reasoning: continues the open item of that kind and index, or opens a new one. */
  #delta(kind: Open["kind"], delta: string, from?: number, id?: string): Open {
    let item = this.#open
    // A reasoning id named only at the end of a block (decoders learn it from the finished item) is the same block.
    const named = id === undefined || item?.upstream === undefined || item.upstream === id
    if (!item || item.kind !== kind || item.from !== from || !named) {
      this.#closeOpen()
      item = this.#openItem(kind, from, id)
    }
    if (id !== undefined) item.upstream = id
    if (delta !== "") {
      if (item.kind === "reasoning" && item.text === "")
        this.#emit({
          type: "response.reasoning_summary_part.added",
          ...this.#at(item, "summary"),
          part: { type: "summary_text", text: "" },
        })
      item.text += delta
      this.#emit(
        item.kind === "message"
          ? { type: "response.output_text.delta", ...this.#at(item, "content"), delta, logprobs: [] }
          : { type: "response.reasoning_summary_text.delta", ...this.#at(item, "summary"), delta },
      )
    }
    return item
  }

  #openItem(kind: Open["kind"], from: number | undefined, id: string | undefined): Open {
    const index = this.#output.length
    // Reserve the output slot so that calls opened later number after this item.
    this.#output.push(undefined)
    if (kind === "message") {
      const item: Open = { kind, index, id: id ?? this.#itemId("msg"), text: "", from }
      const added = { id: item.id, type: "message", status: "in_progress", content: [], role: "assistant" }
      this.#emit({ type: "response.output_item.added", output_index: index, item: added })
      this.#emit({ type: "response.content_part.added", ...this.#at(item, "content"), part: textPart("") })
      this.#open = item
      return item
    }
    const item: Open = { kind, index, id: id ?? this.#itemId("rs"), text: "", from, upstream: id }
    this.#emit({ type: "response.output_item.added", output_index: index, item: reasoningItem(item.id, "") })
    this.#open = item
    return item
  }

  /** Closes the text or reasoning item being written (`incomplete`: the response stopped early). */
  #closeOpen(status: "completed" | "incomplete" = "completed"): void {
    const item = this.#open
    if (!item) return
    this.#open = undefined
    if (item.kind === "message") {
      const at = this.#at(item, "content")
      this.#emit({ type: "response.output_text.done", ...at, text: item.text, logprobs: [] })
      this.#emit({ type: "response.content_part.done", ...at, part: textPart(item.text) })
      this.#item(item.index, messageItem(item.id, item.text, status))
      return
    }
    if (item.text !== "") {
      const at = this.#at(item, "summary")
      this.#emit({ type: "response.reasoning_summary_text.done", ...at, text: item.text })
      this.#emit({
        type: "response.reasoning_summary_part.done",
        ...at,
        part: { type: "summary_text", text: item.text },
      })
    }
    // The id the item was announced with: a client matches `output_item.done` to its `added` by it (the AI SDK
    // fails on an unknown one). A reasoning id learned only at the end travels in the signature (the gateway seals
    // it there) rather than renaming the item.
    const done = reasoningItem(item.id, item.text)
    if (item.signature !== undefined) done.encrypted_content = item.signature
    if (status === "incomplete") done.status = status
    this.#item(item.index, done)
  }

  /**
   * The response failed: the items being written stay open (no `output_item.done`), and the failed response lists
   * them as they stood, `incomplete`.
   */
  #abandon(): void {
    const item = this.#open
    this.#open = undefined
    if (item?.kind === "message") this.#output[item.index] = messageItem(item.id, item.text, "incomplete")
    else if (item) this.#output[item.index] = { ...reasoningItem(item.id, item.text), status: "incomplete" }
    for (const call of this.#calls.values()) this.#output[call.index] = this.#callItem(call, "incomplete")
    this.#calls.clear()
  }

  #callStart(callId: string, name: string): Call {
    this.#closeOpen()
    const call: Call = { index: this.#output.length, itemId: this.#itemId("fc"), callId, name, args: "" }
    this.#output.push(undefined)
    this.#calls.set(callId, call)
    this.#emit({
      type: "response.output_item.added",
      output_index: call.index,
      item: this.#callItem(call, "in_progress"),
    })
    return call
  }

  #callItem(call: Call, status: string): Record<string, unknown> {
    const args = status === "in_progress" ? "" : call.args
    return { id: call.itemId, type: "function_call", status, arguments: args, call_id: call.callId, name: call.name }
  }

  /** Ends an output item: its `output_item.done`, and its final form in the response's output. */
  #item(index: number, item: Record<string, unknown>): void {
    this.#emit({ type: "response.output_item.done", output_index: index, item })
    this.#output[index] = item
  }

  /** Ends every open item: the text or reasoning being written and the calls not ended yet. */
  #closeAll(status: "completed" | "incomplete"): void {
    this.#closeOpen(status)
    for (const call of [...this.#calls.values()]) {
      this.#emit({
        type: "response.function_call_arguments.done",
        item_id: call.itemId,
        output_index: call.index,
        arguments: call.args,
      })
      this.#item(call.index, this.#callItem(call, status))
    }
    this.#calls.clear()
  }

  /** Writes the terminal event: open items closed (or, for a failure, left open); `incomplete` names why it stopped early. */
  #finish(status: "completed" | "incomplete" | "failed", incomplete?: string): void {
    if (status === "failed") this.#abandon()
    else this.#closeAll(status)
    const output = this.#output.filter((item) => item !== undefined)
    const usage = this.#usage ? responsesUsageObject(this.#usage) : null
    const state: ResponseState = { status, output, usage }
    if (status === "failed") state.error = this.#error ?? { code: "server_error", message: "The response failed." }
    if (incomplete !== undefined) state.incomplete = incomplete
    const type = `response.${state.status}`
    this.final = this.#response(state)
    this.#emit({ type, response: this.final })
    this.#done = true
  }

  #response(state: ResponseState): Record<string, unknown> {
    const created = this.options.created ?? 0
    return responseObject(this.#id, this.options.model, this.options.request ?? {}, created, state)
  }

  #at(item: Open, part: "content" | "summary"): Record<string, unknown> {
    return part === "content"
      ? { item_id: item.id, output_index: item.index, content_index: 0 }
      : { item_id: item.id, output_index: item.index, summary_index: 0 }
  }

  /** A deterministic item id: the kind's prefix, the response id's tail and the output index. */
  #itemId(prefix: string): string {
    return `${prefix}_${this.#id.replace(/^resp_/, "")}_${this.#output.length}`
  }

  #emit(payload: Record<string, unknown>): void {
    const numbered = { ...payload, sequence_number: this.payloads.length }
    this.payloads.push(numbered)
    this.#written.push(`event: ${String(payload.type)}\ndata: ${JSON.stringify(numbered)}\n\n`)
  }
}

function textPart(text: string): Record<string, unknown> {
  return { type: "output_text", annotations: [], logprobs: [], text }
}

function messageItem(id: string, text: string, status: string): Record<string, unknown> {
  return { id, type: "message", status, content: [textPart(text)], role: "assistant" }
}

function reasoningItem(id: string, text: string): Record<string, unknown> {
  return { id, type: "reasoning", summary: text === "" ? [] : [{ type: "summary_text", text }] }
}
