import { type CompletenessRule, closeResponse } from "../completeness.js"
import { streamErrorEvent } from "../errors.js"
import {
  count,
  type DecodeStats,
  emptyStats,
  endToolCall,
  num,
  obj,
  type PayloadDecoder,
  partialToolCall,
  type StopReason,
  type StreamErrorEvent,
  type StreamEvent,
  str,
  type Usage,
} from "../stream.js"
import { compactionFromItem } from "./compaction.js"
import { PATCH_END, patchBody, patchHead } from "./patch-envelope.js"

export { patchEnvelope } from "./patch-envelope.js"

type CallKind = "function" | "custom" | "patch"
/** Text received so far per content part (`c<n>`) or summary part (`s<n>`) of an item. */
type Parts = Map<string, string>
type Item =
  | { kind: "message"; parts: Parts }
  | { kind: "reasoning"; parts: Parts; done: boolean }
  | {
      kind: "call"
      call: CallKind
      id: string
      name: string
      /** The argument text received: JSON for a function call, the input of a custom call, a patch's diff. */
      args: string
      deferred: boolean
      ended: boolean
      /** A freeform call (custom, apply_patch): its `input` as streamed so far, and the patch header it began with. */
      freeform?: { sent: string; opened: boolean; head?: string; deleting?: boolean }
    }
  | { kind: "ignored" }
  | { kind: "compaction" }

/** Events that carry nothing the normalized stream needs (their content arrives in other events). */
const QUIET = new Set([
  "response.in_progress",
  "response.queued",
  "response.content_part.added",
  "response.content_part.done",
  "response.reasoning_summary_part.added",
  "response.reasoning_summary_part.done",
  "response.apply_patch_call_operation_diff.done",
])

/**
 * The Responses completeness rule: `response.completed`, or `response.incomplete` (complete, with
 * stop `length` or `refusal`). `response.failed` and an `error` event end the response with stop `error`.
 */
export const RESPONSES_COMPLETENESS: CompletenessRule = {
  terminator: "response.completed or response.incomplete",
  requires: [],
}

/** `incomplete_details.reason` values → ours; another reason is a failure. */
const INCOMPLETE: Record<string, StopReason> = { max_output_tokens: "length", content_filter: "refusal" }

/** Names models use for the wrapper that bundles parallel calls into one. */
const PARALLEL_WRAPPERS = new Set(["multi_tool_use.parallel", "parallel"])

/**
 * Decodes the Responses API stream (`response.*` events). Each reasoning item becomes one thinking
 * block: its summary parts joined by blank lines, `signature` = the item's `encrypted_content` (from
 * `output_item.done`, the complete one), `id` = the item's id, so it can be sent back. Custom (freeform) tool calls decode to
 * `{ input: <text> }`; built-in `apply_patch_call` items decode to an `apply_patch` call whose
 * `input` is the `*** Begin Patch` envelope. A freeform call's argument deltas are that input as JSON text
 * (`{"input":"…"}` streamed piece by piece, its raw text escaped), as for every other call: their concatenation
 * is the JSON of the call's final input. Usage: `input_tokens` includes cached tokens, which are subtracted.
 */
export class OpenAIResponsesDecoder implements PayloadDecoder {
  readonly stats: DecodeStats = emptyStats()
  #open = false
  #done = true
  #items = new Map<number, Item>()
  #byItemId = new Map<string, number>()
  #calls = 0
  #refusal = false
  #failed = false
  #seen = false

  push(payload: unknown, out: StreamEvent[]): void {
    this.stats.payloads++
    const p = obj(payload)
    const type = str(p?.type)
    if (!p || !type) {
      this.stats.malformed++
      out.push({ type: "error", kind: "malformed", message: "payload without a type", raw: JSON.stringify(payload) })
      return
    }
    // A response whose response.created was lost still begins (first or after the previous one ended).
    if (!this.#open && type !== "response.created" && !(type === "error" && this.#seen)) this.#begin(undefined, out)
    this.#seen = true
    switch (type) {
      case "response.output_text.delta":
        this.#text(p, str(p.delta) ?? "", out, false)
        return
      case "response.refusal.delta":
        this.#text(p, str(p.delta) ?? "", out, true)
        return
      case "response.output_text.done":
        this.#text(p, str(p.text) ?? "", out, false, true)
        return
      case "response.refusal.done":
        this.#text(p, str(p.refusal) ?? "", out, true, true)
        return
      case "response.function_call_arguments.delta":
      case "response.custom_tool_call_input.delta":
      case "response.apply_patch_call_operation_diff.delta":
        this.#argsDelta(p, str(p.delta) ?? "", out)
        return
      case "response.function_call_arguments.done":
        this.#argsDelta(p, str(p.arguments) ?? "", out, true)
        return
      case "response.custom_tool_call_input.done":
        this.#argsDelta(p, str(p.input) ?? "", out, true)
        return
      case "response.reasoning_summary_text.delta":
        this.#thinking(p, `s${num(p.summary_index)}`, str(p.delta) ?? "", out)
        return
      case "response.reasoning_summary_text.done":
        this.#thinking(p, `s${num(p.summary_index)}`, str(p.text) ?? "", out, true)
        return
      case "response.reasoning_text.delta":
        this.#thinking(p, `c${num(p.content_index)}`, str(p.delta) ?? "", out)
        return
      case "response.reasoning_text.done":
        this.#thinking(p, `c${num(p.content_index)}`, str(p.text) ?? "", out, true)
        return
      case "response.output_item.added":
        this.#itemAdded(num(p.output_index), obj(p.item) ?? {}, out)
        return
      case "response.output_item.done":
        this.#itemDone(num(p.output_index), obj(p.item) ?? {}, out)
        return
      case "response.created":
        this.#begin(obj(p.response), out)
        return
      case "response.completed":
      case "response.incomplete":
      case "response.failed":
        this.#finish(type, obj(p.response), out)
        return
      case "error": {
        const error = obj(p.error) ?? p
        out.push(streamErrorEvent(str(error.code) ?? str(error.type) ?? "", str(error.message) ?? "stream error"))
        this.#failed = true
        return
      }
      default:
        if (QUIET.has(type)) return
        if (type.startsWith("response.")) count(this.stats.ignored, type)
        else count(this.stats.unknown, type)
    }
  }

  pushRaw(data: string, out: StreamEvent[]): void {
    if (data.trim() === "[DONE]") return
    this.stats.malformed++
    out.push({ type: "error", kind: "malformed", message: "data that is not JSON", raw: data })
  }

  end(out: StreamEvent[]): void {
    if (this.#done && this.#seen) return
    for (const item of this.#items.values())
      if (item.kind === "call" && !item.ended) partialToolCall(item.id, item.name, item.args, out)
    closeResponse(out, { missing: this.#seen ? "response.completed" : "any event", failed: this.#failed })
    this.#done = true
    this.#seen = true
    this.#open = false
  }

  fail(error: StreamErrorEvent, out: StreamEvent[]): void {
    if (this.#done && this.#seen) {
      count(this.stats.ignored, "failure after the response ended")
      return
    }
    out.push(error)
    this.#failed = true
    this.end(out)
  }

  #begin(response: Record<string, unknown> | undefined, out: StreamEvent[]): void {
    if (this.#open) this.stats.restarts++
    this.#open = true
    this.#done = false
    this.#failed = false
    this.#refusal = false
    this.#calls = 0
    this.#items = new Map()
    this.#byItemId = new Map()
    const start: StreamEvent = { type: "start" }
    const id = str(response?.id)
    if (id) start.id = id
    const model = str(response?.model)
    if (model) start.model = model
    out.push(start)
  }

  #item(p: Record<string, unknown>): [number, Item | undefined] {
    const itemId = str(p.item_id)
    const index = typeof p.output_index === "number" ? p.output_index : itemId ? this.#byItemId.get(itemId) : undefined
    return index === undefined ? [-1, undefined] : [index, this.#items.get(index)]
  }

  /** Text for a message part; with `final`, only what the deltas did not already carry. */
  #text(p: Record<string, unknown>, text: string, out: StreamEvent[], refusal: boolean, final = false): void {
    const [index, item] = this.#item(p)
    if (refusal) this.#refusal = true
    const parts = item?.kind === "message" ? item.parts : undefined
    const delta = parts ? this.#advance(parts, `c${num(p.content_index)}`, text, final) : final ? "" : text
    if (delta) out.push({ type: "text", delta, index })
  }

  /** Reasoning text; parts of one item are joined by a blank line into one thinking block. */
  #thinking(p: Record<string, unknown>, part: string, text: string, out: StreamEvent[], final = false): void {
    const [index, item] = this.#item(p)
    if (item?.kind !== "reasoning") {
      if (!final && text) out.push({ type: "thinking", delta: text, index })
      return
    }
    const fresh = !item.parts.has(part) && [...item.parts.values()].some((t) => t !== "")
    let delta = this.#advance(item.parts, part, text, final)
    if (delta && fresh) delta = `\n\n${delta}`
    if (delta) out.push({ type: "thinking", delta, index })
  }

  #argsDelta(p: Record<string, unknown>, text: string, out: StreamEvent[], final = false): void {
    const [, item] = this.#item(p)
    if (item?.kind !== "call") return
    const delta = final ? missingTail(item.args, text, this.stats) : text
    if (!delta) return
    item.args += delta
    if (item.freeform) {
      // A patch's diff streams once its header went out (a file being deleted has no diff to show).
      const streams = item.call === "custom" || (item.freeform.head !== undefined && !item.freeform.deleting)
      if (streams) this.#freeform(item, delta, out)
    } else if (!item.deferred) out.push({ type: "tool_call_delta", id: item.id, argsDelta: delta })
  }

  /** Streams raw input text of a freeform call as the next piece of its `{"input":"…"}` JSON. */
  #freeform(item: Extract<Item, { kind: "call" }>, raw: string, out: StreamEvent[], close = false): void {
    const state = item.freeform!
    let piece = state.opened ? "" : '{"input":"'
    state.opened = true
    state.sent += raw
    piece += JSON.stringify(raw).slice(1, -1)
    if (close) piece += '"}'
    if (piece !== "") out.push({ type: "tool_call_delta", id: item.id, argsDelta: piece })
  }

  /** Ends a freeform call whose whole input is `input` (what was streamed is its beginning). */
  #endFreeform(item: Extract<Item, { kind: "call" }>, input: string, out: StreamEvent[]): void {
    const sent = item.freeform!.sent
    const final = input.startsWith(sent) ? input : sent
    if (final !== input) count(this.stats.unknown, "final input that differs from its deltas")
    this.#freeform(item, final.slice(sent.length), out, true)
    out.push({ type: "tool_call_end", id: item.id, input: { input: final } })
  }

  /** Records text for a part and returns what is new (for a final text: the tail the deltas missed). */
  #advance(parts: Parts, key: string, text: string, final: boolean): string {
    const seen = parts.get(key) ?? ""
    const delta = final ? missingTail(seen, text, this.stats) : text
    if (delta || !parts.has(key)) parts.set(key, seen + delta)
    return delta
  }

  #itemAdded(index: number, item: Record<string, unknown>, out: StreamEvent[]): void {
    const type = str(item.type) ?? ""
    const itemId = str(item.id)
    if (itemId) this.#byItemId.set(itemId, index)
    if (type === "message") this.#items.set(index, { kind: "message", parts: new Map() })
    else if (type === "reasoning") this.#items.set(index, { kind: "reasoning", parts: new Map(), done: false })
    else if (type === "function_call" || type === "custom_tool_call" || type === "apply_patch_call") {
      const call: CallKind = type === "function_call" ? "function" : type === "custom_tool_call" ? "custom" : "patch"
      const id = str(item.call_id) ?? itemId ?? `call_${index}`
      const name = call === "patch" ? "apply_patch" : (str(item.name) ?? "")
      const args = call === "function" ? (str(item.arguments) ?? "") : call === "custom" ? (str(item.input) ?? "") : ""
      const deferred = call === "function" && PARALLEL_WRAPPERS.has(name)
      const state: Extract<Item, { kind: "call" }> = { kind: "call", call, id, name, args, deferred, ended: false }
      this.#items.set(index, state)
      this.#calls++
      if (call !== "function") {
        state.freeform = { sent: "", opened: false }
        out.push({ type: "tool_call_start", id, name })
        const operation = obj(item.operation)
        if (call === "custom" && args) this.#freeform(state, args, out)
        else if (call === "patch" && operation && str(operation.path) !== undefined) {
          // The header names the operation and the file: known from the start, the diff streams after it.
          const head = patchHead(operation)
          state.freeform.head = head
          state.freeform.deleting = operation.type === "delete_file"
          this.#freeform(state, head, out)
          const diff = str(operation.diff) ?? ""
          if (diff) this.#argsDelta({ output_index: index }, diff, out)
        }
      } else if (!deferred) {
        out.push({ type: "tool_call_start", id, name })
        if (args) out.push({ type: "tool_call_delta", id, argsDelta: args })
      }
    } else if (type === "compaction") {
      // Sent whole at output_item.done, which carries its encrypted content.
      this.#items.set(index, { kind: "compaction" })
    } else {
      this.#items.set(index, { kind: "ignored" })
      count(this.stats.ignored, type || "(untyped item)")
    }
  }

  #itemDone(index: number, item: Record<string, unknown>, out: StreamEvent[]): void {
    let state = this.#items.get(index)
    if (!state) {
      this.#itemAdded(index, item, out)
      state = this.#items.get(index)
    }
    if (!state || state.kind === "ignored") return
    if (state.kind === "compaction") {
      this.#items.set(index, { kind: "ignored" })
      const block = compactionFromItem(item)
      if (block) {
        const { type: _, ...rest } = block
        out.push({ type: "compaction", ...rest })
      } else count(this.stats.ignored, "compaction without encrypted_content")
      return
    }
    if (state.kind === "message") {
      const parts = Array.isArray(item.content) ? item.content : []
      parts.forEach((part, i) => {
        const pt = obj(part) ?? {}
        const refusal = pt.type === "refusal"
        const text = str(pt.text) ?? str(pt.refusal) ?? ""
        this.#text({ output_index: index, content_index: i }, text, out, refusal, true)
      })
      return
    }
    if (state.kind === "reasoning") {
      state.done = true
      const summary = Array.isArray(item.summary) ? item.summary : []
      summary.forEach((s, i) => {
        this.#thinking({ output_index: index }, `s${i}`, str(obj(s)?.text) ?? "", out, true)
      })
      const end: StreamEvent = { type: "thinking", delta: "", index }
      const encrypted = str(item.encrypted_content)
      if (encrypted) end.signature = encrypted
      const id = str(item.id)
      if (id) end.id = id
      out.push(end)
      return
    }
    if (state.ended) return
    state.ended = true
    if (state.call === "function") {
      this.#argsDelta({ output_index: index }, str(item.arguments) ?? "", out, true)
      if (state.deferred) {
        this.#endWrapper(state.id, state.name, state.args, out)
        return
      }
      endToolCall(state.id, state.args, out)
    } else if (state.call === "custom") {
      this.#argsDelta({ output_index: index }, str(item.input) ?? "", out, true)
      this.#endFreeform(state, state.args, out)
    } else {
      const operation = obj(item.operation) ?? {}
      this.#argsDelta({ output_index: index }, str(operation.diff) ?? "", out, true)
      // The envelope of the header that was streamed (else the final one) and the whole diff.
      const streamed = state.freeform?.head
      const head = streamed ?? patchHead(operation)
      const type = streamed === undefined ? operation.type : state.freeform?.deleting ? "delete_file" : undefined
      this.#endFreeform(state, `${head}${patchBody(type, state.args)}${PATCH_END}`, out)
    }
  }

  /** Expands a `multi_tool_use.parallel` wrapper into the calls it bundles (ids: `<call id>_<n>`). */
  #endWrapper(id: string, name: string, args: string, out: StreamEvent[]): void {
    let uses: { name: string; input: unknown }[] | undefined
    try {
      const parsed = obj(JSON.parse(args))
      const list = Array.isArray(parsed?.tool_uses) ? parsed.tool_uses : undefined
      uses = list?.map((u) => {
        const use = obj(u) ?? {}
        const recipient = str(use.recipient_name) ?? ""
        if (!recipient.startsWith("functions.")) throw new Error("not a wrapper")
        return { name: recipient.slice("functions.".length), input: use.parameters ?? {} }
      })
    } catch {
      uses = undefined
    }
    if (!uses) {
      out.push({ type: "tool_call_start", id, name })
      if (args) out.push({ type: "tool_call_delta", id, argsDelta: args })
      endToolCall(id, args, out)
      return
    }
    this.#calls += uses.length - 1
    uses.forEach((use, n) => {
      const callId = `${id}_${n}`
      out.push({ type: "tool_call_start", id: callId, name: use.name })
      out.push({ type: "tool_call_delta", id: callId, argsDelta: JSON.stringify(use.input) })
      out.push({ type: "tool_call_end", id: callId, input: use.input })
    })
  }

  #finish(type: string, response: Record<string, unknown> | undefined, out: StreamEvent[]): void {
    if (this.#done) return
    const output = Array.isArray(response?.output) ? response.output : []
    // A failed response's unfinished items were abandoned: a call is reported cut off, never ended.
    const failing = type === "response.failed" || this.#failed
    for (const [index, item] of this.#items) {
      if (item.kind === "call" && !item.ended) {
        if (!failing) this.#itemDone(index, { type: "" }, out)
        else if (!item.deferred) partialToolCall(item.id, item.name, item.args, out)
        item.ended = true
      }
      // A reasoning item whose output_item.done was lost: its final form is in the response.
      if (item.kind === "reasoning" && !item.done && !failing) this.#itemDone(index, obj(output[index]) ?? {}, out)
    }
    const usage = obj(response?.usage)
    let reason: StopReason = this.#calls > 0 ? "tool_use" : this.#refusal ? "refusal" : "end"
    let raw: string | undefined
    let stopError: StreamErrorEvent | undefined
    if (type === "response.incomplete") {
      raw = str(obj(response?.incomplete_details)?.reason) ?? "incomplete"
      reason = INCOMPLETE[raw] ?? "error"
      if (reason === "error")
        stopError = { type: "error", kind: "server", message: `incomplete: the response stopped early (${raw})` }
    } else if (type === "response.failed") {
      const error = obj(response?.error)
      if (!this.#failed) {
        out.push(streamErrorEvent(str(error?.code) ?? "", str(error?.message) ?? "the response failed"))
        this.#failed = true
      }
      raw = "failed"
    }
    closeResponse(out, {
      failed: this.#failed,
      stop: raw === undefined ? { reason } : { reason, raw },
      stopError,
      usage: usage ? responsesUsage(usage) : undefined,
    })
    this.#open = false
    this.#done = true
  }
}

/**
 * What a final text adds to what the deltas carried: its tail when the deltas are a prefix of it
 * (recordings that dropped deltas), nothing when it equals them or disagrees (counted as unknown).
 */
function missingTail(seen: string, final: string, stats: DecodeStats): string {
  if (final === "" || final === seen) return ""
  if (final.startsWith(seen)) return final.slice(seen.length)
  count(stats.unknown, "final text that differs from its deltas")
  return ""
}

/** Responses usage → ours: cached (and cache-write) tokens are subtracted from `input_tokens`. */
export function responsesUsage(usage: Record<string, unknown>): Usage {
  const details = obj(usage.input_tokens_details)
  const cacheRead = num(details?.cached_tokens)
  const cacheWrite = num(details?.cache_write_tokens)
  const result: Usage = {
    input: Math.max(0, num(usage.input_tokens) - cacheRead - cacheWrite),
    output: num(usage.output_tokens),
    cacheRead,
    cacheWrite,
  }
  const reasoning = num(obj(usage.output_tokens_details)?.reasoning_tokens)
  if (reasoning > 0) result.reasoning = reasoning
  return result
}

/** Turns a non-streaming Responses body into the same events a stream would give. */
export function responsesResponseEvents(body: unknown): StreamEvent[] {
  const decoder = new OpenAIResponsesDecoder()
  const out: StreamEvent[] = []
  const response = obj(body) ?? {}
  decoder.push({ type: "response.created", response }, out)
  const output = Array.isArray(response.output) ? response.output : []
  output.forEach((item, index) => {
    decoder.push({ type: "response.output_item.done", output_index: index, item }, out)
  })
  const status = str(response.status)
  const type =
    status === "incomplete" ? "response.incomplete" : status === "failed" ? "response.failed" : "response.completed"
  decoder.push({ type, response }, out)
  return out
}
