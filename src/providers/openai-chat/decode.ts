import { type CompletenessRule, closeResponse, type StopFailure, stopFailureError } from "../completeness.js"
import { streamErrorEvent } from "../errors.js"
import {
  count,
  type DecodeOptions,
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

/** Chat Completions finish reasons → ours. */
const STOP: Record<string, StopReason> = {
  stop: "end",
  tool_calls: "tool_use",
  function_call: "tool_use",
  length: "length",
  content_filter: "refusal",
}

/**
 * The Chat Completions completeness rule (also DeepSeek's): a `finish_reason` on the first choice,
 * and, when the request asked for usage (`stream_options.include_usage`), the usage chunk. `[DONE]`
 * is not required (nothing follows it), but a `[DONE]` before the rule held is truncation too.
 */
export const CHAT_COMPLETENESS: CompletenessRule = {
  terminator: "a finish_reason on choice 0",
  requires: ["the usage chunk, when stream_options.include_usage was sent"],
  optional: ["data: [DONE]"],
}

/** The finish reasons an OpenAI-compatible server adds to OpenAI's own: extra normal stops, and failures. */
export interface ChatFinishReasons {
  /** Extra finish reasons that end a response normally. */
  stops?: Record<string, StopReason>
  /** Finish reasons that stand for a failure (e.g. DeepSeek's `insufficient_system_resource`): stop `error`. */
  failures?: Record<string, StopFailure>
}

interface Call {
  id: string
  name: string
  args: string
  started: boolean
  ended: boolean
}

/**
 * Decodes Chat Completions chunks (`chat.completion.chunk`), as sent by OpenAI and by compatible
 * servers (Azure, xAI, OpenRouter, Ollama, vLLM, LM Studio, llama.cpp, DeepSeek). Reads
 * `reasoning_content` and `reasoning` as thinking. Tool-call arguments are joined per call `index`
 * and parsed when the choice finishes. Only the first choice is decoded.
 */
export class OpenAIChatDecoder implements PayloadDecoder {
  readonly stats: DecodeStats = emptyStats()
  readonly #stops: Record<string, StopReason>
  readonly #failures: Record<string, StopFailure>
  readonly #expectUsage: boolean
  #started = false
  #id: string | undefined
  #calls: Call[] = []
  #byIndex = new Map<number, Call>()
  #finish: string | undefined
  #refusal = false
  #usage: Usage | undefined
  #failed = false
  #done = false

  constructor(finishReasons: ChatFinishReasons = {}, options: DecodeOptions = {}) {
    this.#stops = { ...STOP, ...finishReasons.stops }
    this.#failures = { ...finishReasons.failures }
    this.#expectUsage = options.expectUsage === true
  }

  push(payload: unknown, out: StreamEvent[]): void {
    this.stats.payloads++
    const p = obj(payload)
    if (!p) {
      this.stats.malformed++
      out.push({ type: "error", kind: "malformed", message: "payload is not an object", raw: JSON.stringify(payload) })
      return
    }
    if (this.#done) {
      count(this.stats.unknown, "payload after [DONE]")
      return
    }
    if (p.error !== undefined && p.error !== null) {
      this.#error(p.error, out)
      return
    }
    const id = str(p.id)
    if (!this.#started && id) this.#start(p, out)
    else if (id && this.#id && id !== this.#id && opensCompletion(p)) this.#restart(p, out)
    const choices = Array.isArray(p.choices) ? p.choices : []
    for (const c of choices) {
      const choice = obj(c)
      if (!choice) continue
      if (num(choice.index) !== 0) {
        count(this.stats.ignored, "choice index > 0")
        continue
      }
      if (!this.#started) this.#start(p, out)
      const delta = obj(choice.delta) ?? obj(choice.message)
      if (delta) this.#delta(delta, out)
      const finish = str(choice.finish_reason)
      if (finish) {
        this.#finish = finish
        this.#endCalls(out)
      }
    }
    const usage = obj(p.usage)
    if (usage) this.#usage = chatUsage(usage)
  }

  pushRaw(data: string, out: StreamEvent[]): void {
    if (data.trim() === "[DONE]") {
      this.#complete(out, "[DONE]")
      return
    }
    this.stats.malformed++
    out.push({ type: "error", kind: "malformed", message: "data that is not JSON", raw: data })
  }

  end(out: StreamEvent[]): void {
    this.#complete(out)
  }

  fail(error: StreamErrorEvent, out: StreamEvent[]): void {
    if (this.#done || (this.#finish !== undefined && (!this.#expectUsage || this.#usage !== undefined))) {
      // The rule already held: the response is whole, the failure came after it.
      count(this.stats.ignored, "failure after the response ended")
      this.#complete(out)
      return
    }
    out.push(error)
    this.#failed = true
    this.#complete(out)
  }

  #start(p: Record<string, unknown>, out: StreamEvent[]): void {
    this.#started = true
    this.#id = str(p.id) || undefined
    const start: StreamEvent = { type: "start" }
    if (this.#id) start.id = this.#id
    const model = str(p.model)
    if (model) start.model = model
    out.push(start)
  }

  /**
   * A new completion spliced into the stream (an upstream retry joined to the broken answer): the open one is
   * abandoned, its unfinished calls reported cut off, and the new one decoded from its start.
   */
  #restart(p: Record<string, unknown>, out: StreamEvent[]): void {
    this.stats.restarts++
    for (const call of this.#calls) if (!call.ended) partialToolCall(call.id, call.name, call.args, out)
    this.#calls = []
    this.#byIndex = new Map()
    this.#finish = undefined
    this.#refusal = false
    this.#usage = undefined
    this.#failed = false
    this.#start(p, out)
  }

  #delta(delta: Record<string, unknown>, out: StreamEvent[]): void {
    const reasoning = str(delta.reasoning_content) ?? str(delta.reasoning)
    if (reasoning) out.push({ type: "thinking", delta: reasoning })
    const content = str(delta.content)
    if (content) out.push({ type: "text", delta: content })
    const refusal = str(delta.refusal)
    if (refusal) {
      this.#refusal = true
      out.push({ type: "text", delta: refusal })
    }
    if (Array.isArray(delta.tool_calls)) for (const tc of delta.tool_calls) this.#toolCall(obj(tc) ?? {}, out)
  }

  #toolCall(tc: Record<string, unknown>, out: StreamEvent[]): void {
    const fn = obj(tc.function)
    const id = str(tc.id)
    const indexed = typeof tc.index === "number"
    // Without an index (some servers): the call with this id, a new call for a new id, else the last call.
    let call = indexed
      ? this.#byIndex.get(tc.index as number)
      : id
        ? this.#calls.find((c) => c.id === id)
        : this.#calls[this.#calls.length - 1]
    // Some servers send every call at index 0, told apart only by a new id.
    if (!call || (indexed && id && call.id !== id && (call.started || call.args !== ""))) {
      call = {
        id: id || `${this.#id ?? "call"}_${this.#calls.length}`,
        name: "",
        args: "",
        started: false,
        ended: false,
      }
      this.#calls.push(call)
      if (indexed) this.#byIndex.set(tc.index as number, call)
    } else if (id && !call.started) call.id = id
    const name = str(fn?.name)
    if (name && !call.started) call.name = name
    const args = str(fn?.arguments) ?? ""
    if (!call.started && call.name) {
      call.started = true
      out.push({ type: "tool_call_start", id: call.id, name: call.name })
      if (call.args) out.push({ type: "tool_call_delta", id: call.id, argsDelta: call.args })
    }
    if (args) {
      call.args += args
      if (call.started) out.push({ type: "tool_call_delta", id: call.id, argsDelta: args })
    }
  }

  #endCalls(out: StreamEvent[]): void {
    for (const call of this.#calls) {
      if (call.ended) continue
      if (!call.started) {
        out.push({ type: "tool_call_start", id: call.id, name: call.name })
        if (call.args) out.push({ type: "tool_call_delta", id: call.id, argsDelta: call.args })
      }
      call.started = true
      call.ended = true
      endToolCall(call.id, call.args, out)
    }
  }

  #error(error: unknown, out: StreamEvent[]): void {
    const e = obj(error)
    const message = str(e?.message) ?? (typeof error === "string" ? error : "stream error")
    const code = [...new Set([str(e?.type), str(e?.code), typeof e?.code === "number" ? String(e.code) : undefined])]
      .filter(Boolean)
      .join(" ")
    const status = typeof e?.code === "number" ? e.code : undefined
    out.push(streamErrorEvent(code, message, { status, details: e?.details }))
    this.#failed = true
  }

  /** Ends the response (at `[DONE]` or the end of the body) by CHAT_COMPLETENESS. */
  #complete(out: StreamEvent[], endedBy?: string): void {
    if (this.#done) return
    this.#done = true
    const raw = this.#finish
    const missing =
      raw === undefined
        ? "a finish_reason"
        : this.#expectUsage && this.#usage === undefined
          ? "the usage chunk (stream_options.include_usage)"
          : undefined
    if (raw === undefined || this.#failed) {
      for (const call of this.#calls) if (!call.ended) partialToolCall(call.id, call.name, call.args, out)
    } else this.#endCalls(out)
    const failure = raw === undefined ? undefined : this.#failures[raw]
    let reason: StopReason = failure ? "error" : raw ? (this.#stops[raw] ?? "end") : "end"
    if (reason === "end" && this.#calls.length > 0) reason = "tool_use"
    if (reason === "end" && this.#refusal) reason = "refusal"
    closeResponse(out, {
      missing,
      endedBy,
      failed: this.#failed,
      stop: raw === undefined ? undefined : { reason, raw },
      stopError: failure && raw ? stopFailureError(raw, failure) : undefined,
      usage: this.#usage,
    })
  }
}

/**
 * Whether a chunk opens a completion: its first choice's delta names the role and carries nothing yet (no text, no
 * reasoning, no call, no finish), the way every completion's first chunk does. Told apart from servers that repeat
 * the role on every chunk, a chunk with another id that opens a completion is a new one spliced in.
 */
function opensCompletion(p: Record<string, unknown>): boolean {
  const choice = obj(Array.isArray(p.choices) ? p.choices[0] : undefined)
  const delta = obj(choice?.delta)
  if (!choice || !delta || str(delta.role) === undefined || str(choice.finish_reason)) return false
  const empty = (v: unknown) => v === undefined || v === null || v === ""
  const calls = Array.isArray(delta.tool_calls) && delta.tool_calls.length > 0
  return empty(delta.content) && empty(delta.reasoning_content) && empty(delta.reasoning) && !calls
}

/**
 * Chat Completions usage → ours. `prompt_tokens` includes cached tokens (`cached_tokens`, or
 * DeepSeek's `prompt_cache_hit_tokens`), so they are subtracted. `completion_tokens` includes
 * reasoning, except on servers (xAI) whose `total_tokens` shows reasoning counted on top.
 */
export function chatUsage(usage: Record<string, unknown>): Usage {
  const prompt = num(usage.prompt_tokens)
  const completion = num(usage.completion_tokens)
  const promptDetails = obj(usage.prompt_tokens_details)
  const reasoning = num(obj(usage.completion_tokens_details)?.reasoning_tokens)
  const hit = usage.prompt_cache_hit_tokens
  const cacheRead = typeof hit === "number" ? hit : num(promptDetails?.cached_tokens)
  const cacheWrite = num(promptDetails?.cache_write_tokens)
  const miss = usage.prompt_cache_miss_tokens
  const input = typeof miss === "number" ? miss : Math.max(0, prompt - cacheRead - cacheWrite)
  const total = num(usage.total_tokens)
  const reasoningOnTop = reasoning > 0 && total === prompt + completion + reasoning
  const result: Usage = { input, output: reasoningOnTop ? completion + reasoning : completion, cacheRead, cacheWrite }
  if (reasoning > 0) result.reasoning = reasoning
  return result
}

/** Turns a non-streaming Chat Completions response body into the same events a stream would give. */
export function chatResponseEvents(body: unknown, finishReasons: ChatFinishReasons = {}): StreamEvent[] {
  const decoder = new OpenAIChatDecoder(finishReasons)
  const out: StreamEvent[] = []
  const b = obj(body)
  const choices = Array.isArray(b?.choices) ? b.choices : []
  const asChunk = {
    ...b,
    choices: choices.map((c) => {
      const choice = obj(c) ?? {}
      const message = obj(choice.message) ?? {}
      const calls = Array.isArray(message.tool_calls) ? message.tool_calls : []
      return {
        ...choice,
        message: undefined,
        delta: { ...message, tool_calls: calls.map((tc, index) => ({ index, ...(obj(tc) ?? {}) })) },
      }
    }),
  }
  decoder.push(asChunk, out)
  decoder.end(out)
  return out
}
