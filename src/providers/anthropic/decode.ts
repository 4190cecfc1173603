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
  type StreamErrorEvent,
  type StreamEvent,
  str,
  type Usage,
} from "../stream.js"
import { appliedEdits, compactionFromWire } from "./context-edits.js"
import { stopFromAnthropic } from "./stop-reasons.js"
import { isToolSearchName, toolSearchResultFromWire } from "./tool-search-blocks.js"

/**
 * Anthropic's completeness rule: `message_start`, then a `message_delta` with the stop reason, then
 * `message_stop`. A body that stops after the stop reason but before `message_stop` is truncated.
 */
export const ANTHROPIC_COMPLETENESS: CompletenessRule = {
  terminator: "message_stop",
  requires: ["message_start", "a message_delta with a stop_reason"],
}

/** The string field each delta type carries. */
const DELTA_FIELDS: Record<string, string> = {
  text_delta: "text",
  thinking_delta: "thinking",
  signature_delta: "signature",
  input_json_delta: "partial_json",
}
const FAST_PREFIX = '{"type":"content_block_delta","index":'
const FAST_DELTA = ',"delta":{"type":"'
const FAST_HEADS = Object.entries(DELTA_FIELDS).map(([type, field]) => ({ type, text: `${type}","${field}":"` }))

/** The delta type written at `at` (told apart by its first two letters), if it is one of the four. */
function fastHead(data: string, at: number): { type: string; text: string } | undefined {
  const a = data.charCodeAt(at)
  const b = data.charCodeAt(at + 1)
  // te(xt), th(inking), si(gnature), in(put_json): the order of FAST_HEADS.
  const head =
    a === 116
      ? b === 101
        ? FAST_HEADS[0]
        : b === 104
          ? FAST_HEADS[1]
          : undefined
      : a === 115
        ? FAST_HEADS[2]
        : a === 105
          ? FAST_HEADS[3]
          : undefined
  return head && data.startsWith(head.text, at) ? head : undefined
}
/** Characters that make a JSON string body need real parsing (escapes, quotes, raw control characters). */
const NEEDS_JSON = /["\\\u0000-\u001f]/

type Block =
  | { kind: "text" | "thinking" | "ignored" }
  | { kind: "compaction"; wire: Record<string, unknown> }
  | { kind: "tool"; id: string; name: string; args: string; initial: unknown }
  | { kind: "search"; id: string; name: string; args: string; initial: unknown }

/**
 * Decodes the Messages API stream (`message_start`, `content_block_*`, `message_delta`,
 * `message_stop`, `ping`, `error`). Usage: Anthropic's `input_tokens` already excludes cache reads
 * and writes, so it is taken as is; `message_delta` figures replace those of `message_start`.
 */
export class AnthropicDecoder implements PayloadDecoder {
  readonly stats: DecodeStats = emptyStats()
  #open = false
  #messageId: string | undefined
  #blocks = new Map<number, Block>()
  /** The tool searches the server ran in this message, by call id, for their result blocks. */
  #searches = new Map<string, { name: string; input: unknown }>()
  #usage: Usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }
  #stop: string | undefined
  /** The provider's explanation of its stop reason (`stop_details.explanation` of a refusal). */
  #stopMessage: string | undefined
  #failed = false
  #done = false

  push(payload: unknown, out: StreamEvent[]): void {
    this.stats.payloads++
    const p = obj(payload)
    const type = str(p?.type)
    if (!p || !type) {
      this.stats.malformed++
      out.push({ type: "error", kind: "malformed", message: "payload without a type", raw: JSON.stringify(payload) })
      return
    }
    switch (type) {
      case "content_block_delta":
        this.#delta(p, out)
        return
      case "content_block_start":
        this.#blockStart(p, out)
        return
      case "content_block_stop":
        this.#blockStop(p, out)
        return
      case "message_start":
        this.#messageStart(p, out)
        return
      case "message_delta": {
        const delta = obj(p.delta)
        const stop = str(delta?.stop_reason)
        if (stop) this.#stop = stop
        const explanation = str(obj(delta?.stop_details)?.explanation)
        if (explanation) this.#stopMessage = explanation
        this.#readUsage(obj(p.usage))
        const edits = appliedEdits(p.context_management)
        if (edits?.length) out.push({ type: "context_edits", edits })
        return
      }
      case "message_stop":
        this.#finish(out)
        return
      case "ping":
        this.stats.pings++
        return
      case "error": {
        const error = obj(p.error)
        out.push(streamErrorEvent(str(error?.type) ?? "", str(error?.message) ?? "stream error"))
        this.#failed = true
        return
      }
      default:
        count(this.stats.unknown, type)
    }
  }

  pushRaw(data: string, out: StreamEvent[]): void {
    this.stats.malformed++
    out.push({ type: "error", kind: "malformed", message: "data that is not JSON", raw: data })
  }

  end(out: StreamEvent[]): void {
    if (this.#done) return
    this.#closeOpenCalls(out)
    this.#close(out, "message_stop")
  }

  fail(error: StreamErrorEvent, out: StreamEvent[]): void {
    if (this.#done && this.stats.payloads > 0) {
      count(this.stats.ignored, "failure after the response ended")
      return
    }
    out.push(error)
    this.#failed = true
    this.end(out)
  }

  #messageStart(p: Record<string, unknown>, out: StreamEvent[]): void {
    const message = obj(p.message)
    const id = str(message?.id)
    if (this.#open && id === this.#messageId) {
      this.stats.duplicateStarts++
      return
    }
    if (this.#open) {
      // A spliced upstream retry: the open generation is abandoned; say which calls it cut off.
      this.stats.restarts++
      this.#closeOpenCalls(out)
    }
    this.#open = true
    this.#done = false
    this.#failed = false
    this.#stop = undefined
    this.#stopMessage = undefined
    this.#messageId = id
    this.#blocks = new Map()
    this.#searches = new Map()
    this.#usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }
    this.#readUsage(obj(message?.usage))
    const start: StreamEvent = { type: "start" }
    if (id) start.id = id
    const model = str(message?.model)
    if (model) start.model = model
    out.push(start)
  }

  #blockStart(p: Record<string, unknown>, out: StreamEvent[]): void {
    const index = num(p.index)
    const block = obj(p.content_block)
    const type = str(block?.type) ?? ""
    if (type === "text") {
      this.#blocks.set(index, { kind: "text" })
      const text = str(block?.text)
      if (text) out.push({ type: "text", delta: text, index })
    } else if (type === "thinking") {
      this.#blocks.set(index, { kind: "thinking" })
      const thinking = str(block?.thinking) ?? ""
      const signature = str(block?.signature)
      if (thinking || signature) {
        const ev: StreamEvent = { type: "thinking", delta: thinking, index }
        if (signature) ev.signature = signature
        out.push(ev)
      }
    } else if (type === "redacted_thinking") {
      this.#blocks.set(index, { kind: "ignored" })
      out.push({ type: "redacted_thinking", data: str(block?.data) ?? "" })
    } else if (type === "compaction") {
      // Sent whole at content_block_stop: the summary arrives in compaction_delta events.
      this.#blocks.set(index, { kind: "compaction", wire: { ...block, content: str(block?.content) ?? "" } })
    } else if (type === "tool_use") {
      const id = str(block?.id) ?? `toolu_${index}`
      const name = str(block?.name) ?? ""
      this.#blocks.set(index, { kind: "tool", id, name, args: "", initial: block?.input })
      out.push({ type: "tool_call_start", id, name })
    } else if (type === "server_tool_use" && isToolSearchName(block?.name)) {
      // A tool search the server runs: its call, read whole with its result (tool_search_tool_result).
      const id = str(block?.id) ?? `srvtoolu_${index}`
      this.#blocks.set(index, { kind: "search", id, name: str(block?.name) ?? "", args: "", initial: block?.input })
    } else if (type === "tool_search_tool_result" && this.#searchResult(block, out)) {
      this.#blocks.set(index, { kind: "ignored" })
    } else {
      // Other server-side tools (web search, code execution, ...) run at Anthropic; they have no place in the
      // internal message format.
      this.#blocks.set(index, { kind: "ignored" })
      count(this.stats.ignored, type || "(untyped block)")
    }
  }

  #delta(p: Record<string, unknown>, out: StreamEvent[]): void {
    const delta = obj(p.delta)
    const type = str(delta?.type) ?? ""
    if (type === "compaction_delta") {
      const block = this.#blocks.get(num(p.index))
      if (block?.kind !== "compaction") return void count(this.stats.unknown, `delta for unknown block ${num(p.index)}`)
      block.wire.content = `${block.wire.content ?? ""}${str(delta?.content) ?? ""}`
      for (const [key, value] of Object.entries(delta ?? {}))
        if (key !== "type" && key !== "content" && value != null) block.wire[key] = value
      return
    }
    const field = DELTA_FIELDS[type]
    this.#applyDelta(num(p.index), type, field ? (str(delta?.[field]) ?? "") : "", out)
  }

  /** Applies a content_block_delta of `type` whose string payload (text, thinking, signature, JSON piece) is `value`. */
  #applyDelta(index: number, type: string, value: string, out: StreamEvent[]): void {
    const block = this.#blocks.get(index)
    if (!block || block.kind === "ignored" || block.kind === "compaction") {
      if (!block) count(this.stats.unknown, `delta for unknown block ${index}`)
      return
    }
    switch (type) {
      case "text_delta":
        out.push({ type: "text", delta: value, index })
        return
      case "thinking_delta":
        out.push({ type: "thinking", delta: value, index })
        return
      case "signature_delta":
        out.push({ type: "thinking", delta: "", signature: value, index })
        return
      case "input_json_delta":
        if (block.kind === "search") block.args += value
        else if (block.kind === "tool" && value) {
          block.args += value
          out.push({ type: "tool_call_delta", id: block.id, argsDelta: value })
        }
        return
      case "citations_delta":
        count(this.stats.ignored, type)
        return
      default:
        count(this.stats.unknown, type || "(untyped delta)")
    }
  }

  /**
   * The fast path for the events that make up almost all of a stream: a content_block_delta written
   * exactly as the API writes it (`{"type":"content_block_delta","index":N,"delta":{"type":T,"F":"…"}}`)
   * is read without building the whole object; the string is taken as is when it has no escapes, else
   * parsed alone. Anything else (other key order, spacing, extra keys) returns false and goes through
   * JSON.parse. bench/decode showed JSON.parse at about 60% of decoding time.
   */
  pushData(data: string, out: StreamEvent[]): boolean {
    if (!data.startsWith(FAST_PREFIX)) return false
    let at = FAST_PREFIX.length
    let index = 0
    const digitsFrom = at
    for (let c = data.charCodeAt(at); c >= 48 && c <= 57; c = data.charCodeAt(++at)) index = index * 10 + (c - 48)
    if (at === digitsFrom || at - digitsFrom > 9 || !data.startsWith(FAST_DELTA, at)) return false
    at += FAST_DELTA.length
    const head = fastHead(data, at)
    if (head === undefined) return false
    const from = at + head.text.length
    const to = data.length - 3
    if (to < from || data.charCodeAt(to) !== 34 || data.charCodeAt(to + 1) !== 125 || data.charCodeAt(to + 2) !== 125)
      return false
    let value = data.slice(from, to)
    if (NEEDS_JSON.test(value)) {
      try {
        value = JSON.parse(`"${value}"`) as string
      } catch {
        return false
      }
    }
    this.stats.payloads++
    this.#applyDelta(index, head.type, value, out)
    return true
  }

  #blockStop(p: Record<string, unknown>, out: StreamEvent[]): void {
    const index = num(p.index)
    const block = this.#blocks.get(index)
    if (block?.kind === "tool") this.#endTool(block, out)
    if (block?.kind === "compaction") this.#endCompaction(block.wire, out)
    if (block?.kind === "search") this.#searches.set(block.id, { name: block.name, input: searchInput(block) })
    this.#blocks.delete(index)
  }

  /** A tool search's result block: the search with the tools it found, as one event. False when it is not one. */
  #searchResult(block: Record<string, unknown> | undefined, out: StreamEvent[]): boolean {
    const id = str(block?.tool_use_id)
    const search = id === undefined ? undefined : this.#searches.get(id)
    const result = toolSearchResultFromWire(block?.content)
    if (id === undefined || search === undefined || result === undefined) return false
    out.push({ type: "tool_search", id, name: search.name, input: search.input, ...result })
    return true
  }

  #endCompaction(wire: Record<string, unknown>, out: StreamEvent[]): void {
    const { type: _, ...block } = compactionFromWire(wire.content === "" ? { ...wire, content: null } : wire)
    out.push({ type: "compaction", ...block })
  }

  #endTool(block: Extract<Block, { kind: "tool" }>, out: StreamEvent[]): void {
    if (block.args === "" && obj(block.initial) && Object.keys(obj(block.initial)!).length > 0) {
      out.push({ type: "tool_call_end", id: block.id, input: block.initial })
    } else endToolCall(block.id, block.args, out)
  }

  #finish(out: StreamEvent[]): void {
    if (this.#done) return
    // Blocks still open at message_stop are closed as the API would have.
    for (const block of this.#blocks.values()) if (block.kind === "tool") this.#endTool(block, out)
    this.#blocks.clear()
    this.#close(
      out,
      !this.#open ? "message_start" : this.#stop === undefined ? "a stop_reason" : undefined,
      "message_stop",
    )
    this.#open = false
  }

  /** Ends the response by the completeness rule; `missing` is what the rule still lacked, `endedBy` what ended it anyway. */
  #close(out: StreamEvent[], missing: string | undefined, endedBy?: string): void {
    const raw = this.#stop
    const stop = raw === undefined ? undefined : { reason: stopFromAnthropic(raw), raw, message: this.#stopMessage }
    closeResponse(out, { missing, endedBy, failed: this.#failed, stop, usage: this.#usage })
    this.#done = true
  }

  #closeOpenCalls(out: StreamEvent[]): void {
    for (const block of this.#blocks.values())
      if (block.kind === "tool") partialToolCall(block.id, block.name, block.args, out)
    this.#blocks.clear()
  }

  #readUsage(usage: Record<string, unknown> | undefined): void {
    if (!usage) return
    const u = this.#usage
    if (typeof usage.input_tokens === "number") u.input = usage.input_tokens
    if (typeof usage.output_tokens === "number") u.output = usage.output_tokens
    if (typeof usage.cache_read_input_tokens === "number") u.cacheRead = usage.cache_read_input_tokens
    if (typeof usage.cache_creation_input_tokens === "number") u.cacheWrite = usage.cache_creation_input_tokens
    const thinking = obj(usage.output_tokens_details)?.thinking_tokens
    if (typeof thinking === "number" && thinking > 0) u.reasoning = thinking
  }
}

/** Turns a non-streaming Messages API response body into the same events a stream would give. */
export function anthropicResponseEvents(body: unknown): StreamEvent[] {
  const decoder = new AnthropicDecoder()
  const out: StreamEvent[] = []
  const message = obj(body)
  if (!message) {
    decoder.pushRaw(JSON.stringify(body), out)
    return out
  }
  if (message.type === "error") {
    decoder.push(message, out)
    decoder.end(out)
    return out
  }
  const { content, stop_reason, usage, context_management, ...rest } = message
  decoder.push({ type: "message_start", message: { ...rest, content: [], usage } }, out)
  const blocks = Array.isArray(content) ? content : []
  blocks.forEach((block, index) => {
    const b = obj(block) ?? {}
    if (b.type === "tool_use") {
      decoder.push({ type: "content_block_start", index, content_block: { ...b, input: {} } }, out)
      decoder.push(
        {
          type: "content_block_delta",
          index,
          delta: { type: "input_json_delta", partial_json: JSON.stringify(b.input ?? {}) },
        },
        out,
      )
    } else decoder.push({ type: "content_block_start", index, content_block: b }, out)
    decoder.push({ type: "content_block_stop", index }, out)
  })
  decoder.push({ type: "message_delta", delta: { stop_reason }, usage, context_management }, out)
  decoder.push({ type: "message_stop" }, out)
  return out
}

/** A tool search call's input: its streamed arguments as JSON, else the input its start carried. */
function searchInput(block: Extract<Block, { kind: "search" }>): unknown {
  if (block.args.trim() === "") return block.initial ?? {}
  try {
    return JSON.parse(block.args)
  } catch {
    return block.initial ?? {}
  }
}
