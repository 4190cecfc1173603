import { type CompletenessRule, closeResponse, type StopFailure, stopFailureError } from "../completeness.js"
import { streamErrorEvent } from "../errors.js"
import {
  count,
  type DecodeStats,
  emptyStats,
  obj,
  type PayloadDecoder,
  partialToolCall,
  type StopReason,
  type StreamErrorEvent,
  type StreamEvent,
  str,
  type Usage,
} from "../stream.js"

/**
 * Gemini's completeness rule: a chunk whose first candidate has a `finishReason` (or a prompt blocked
 * by `promptFeedback.blockReason`). The usage of that chunk is the final usage.
 */
export const GEMINI_COMPLETENESS: CompletenessRule = {
  terminator: "a finishReason on candidate 0, or promptFeedback.blockReason",
  requires: [],
}

/** Gemini finish reasons that end a response normally, or by a refusal (content the provider would not give). */
const STOP: Record<string, StopReason> = {
  STOP: "end",
  MAX_TOKENS: "length",
  SAFETY: "refusal",
  RECITATION: "refusal",
  BLOCKLIST: "refusal",
  PROHIBITED_CONTENT: "refusal",
  SPII: "refusal",
  IMAGE_SAFETY: "refusal",
  IMAGE_PROHIBITED_CONTENT: "refusal",
  IMAGE_RECITATION: "refusal",
  LANGUAGE: "refusal",
}

/**
 * Gemini finish reasons that stand for a failure: stop `error`, with an error that keeps the reason and
 * `finishMessage`. `server` ones may succeed when asked again (a fresh sample); `invalid-request` ones
 * need a different request. A reason in neither table counts as `OTHER`.
 */
const FAILURES: Record<string, StopFailure> = {
  MALFORMED_FUNCTION_CALL: { kind: "server", meaning: "the model wrote a function call that is not valid" },
  OTHER: { kind: "server", meaning: "generation stopped for a reason Gemini does not name" },
  FINISH_REASON_UNSPECIFIED: { kind: "server", meaning: "generation stopped without a reason" },
  IMAGE_OTHER: { kind: "server", meaning: "image generation stopped for a reason Gemini does not name" },
  NO_IMAGE: { kind: "server", meaning: "an image was expected but none was generated" },
  UNEXPECTED_TOOL_CALL: {
    kind: "invalid-request",
    meaning: "the model called a tool the request does not declare (or with tools turned off)",
  },
  TOO_MANY_TOOL_CALLS: { kind: "invalid-request", meaning: "the model made more tool calls in a row than allowed" },
  MISSING_THOUGHT_SIGNATURE: {
    kind: "invalid-request",
    meaning: "a function call in the history lacks the thought signature Gemini gave it",
  },
}

/** How a finish reason ends the response: a normal or refusal stop, or a failure with its error. */
function finishOutcome(raw: string): { reason: StopReason; failure?: StopFailure } {
  const reason = STOP[raw] ?? (raw.endsWith("_SAFETY") ? "refusal" : undefined)
  if (reason) return { reason }
  return { reason: "error", failure: FAILURES[raw] ?? FAILURES.OTHER! }
}

interface OpenCall {
  id: string
  name: string
  args: Record<string, unknown>
  signature: string | undefined
  /** jsonPaths whose string value is still being streamed. */
  openStrings: Set<string>
}

/**
 * Decodes `streamGenerateContent?alt=sse` chunks (each a GenerateContentResponse). Function calls
 * come whole (`args`) or streamed (`willContinue` with `partialArgs` addressed by jsonPath); a
 * streamed call ends at a `functionCall` part without `willContinue` or at the finish reason. A
 * `thoughtSignature` on a function call goes to the call; on a thought part to that thinking block;
 * on a plain text part to an empty thinking block placed just before that text. Usage: `promptTokenCount`
 * includes cached tokens (subtracted); output = candidates + thoughts tokens. Calls without an id get
 * `<responseId>_<n>`.
 */
export class GeminiDecoder implements PayloadDecoder {
  readonly stats: DecodeStats = emptyStats()
  #started = false
  #responseId: string | undefined
  #call: OpenCall | undefined
  #calls = 0
  /** Thinking block counter: consecutive thought parts share one index, a lone signature gets its own. */
  #block = 0
  #inThought = false
  #finish: string | undefined
  /** Gemini's explanation of the finish reason (`finishMessage`). */
  #finishMessage: string | undefined
  #usage: Usage | undefined
  /** The prompt itself was blocked (promptFeedback.blockReason). */
  #blocked = false
  #failed = false
  #done = false

  push(payload: unknown, out: StreamEvent[]): void {
    this.stats.payloads++
    const chunk = Array.isArray(payload) && payload.length === 1 ? obj(payload[0]) : obj(payload)
    if (!chunk) {
      this.stats.malformed++
      out.push({ type: "error", kind: "malformed", message: "payload is not an object", raw: JSON.stringify(payload) })
      return
    }
    if (this.#done) {
      count(this.stats.unknown, "chunk after finish")
      return
    }
    const error = obj(chunk.error)
    if (error) {
      const status = typeof error.code === "number" ? error.code : undefined
      out.push(
        streamErrorEvent(str(error.status) ?? "", str(error.message) ?? "stream error", {
          status,
          details: error.details,
        }),
      )
      this.#failed = true
      return
    }
    const responseId = str(chunk.responseId)
    // Another response's chunk before this one finished: an upstream retry spliced in, the open one abandoned.
    if (this.#started && responseId && this.#responseId && responseId !== this.#responseId && !this.#finish)
      this.#restart(out)
    if (!this.#started) {
      this.#started = true
      this.#responseId = responseId
      const start: StreamEvent = { type: "start" }
      if (this.#responseId) start.id = this.#responseId
      const model = str(chunk.modelVersion)
      if (model) start.model = model
      out.push(start)
    }
    const candidates = Array.isArray(chunk.candidates) ? chunk.candidates : []
    for (const c of candidates) {
      const candidate = obj(c)
      if (!candidate) continue
      if (typeof candidate.index === "number" && candidate.index !== 0) {
        count(this.stats.ignored, "candidate index > 0")
        continue
      }
      const parts = obj(candidate.content)?.parts
      if (Array.isArray(parts)) for (const part of parts) this.#part(obj(part) ?? {}, out)
      const finish = str(candidate.finishReason)
      if (finish) {
        this.#finish = finish
        this.#finishMessage = str(candidate.finishMessage)
        this.#endCall(out)
      }
    }
    const blocked = str(obj(chunk.promptFeedback)?.blockReason)
    if (blocked) {
      this.#finish = blocked
      this.#finishMessage = str(obj(chunk.promptFeedback)?.blockReasonMessage)
      this.#blocked = true
    }
    const usage = obj(chunk.usageMetadata)
    if (usage && typeof usage.promptTokenCount === "number") this.#usage = geminiUsage(usage)
  }

  pushRaw(data: string, out: StreamEvent[]): void {
    this.stats.malformed++
    out.push({ type: "error", kind: "malformed", message: "data that is not JSON", raw: data })
  }

  end(out: StreamEvent[]): void {
    if (this.#done) return
    this.#done = true
    const raw = this.#finish
    if (raw === undefined || this.#failed) {
      if (this.#call) partialToolCall(this.#call.id, this.#call.name, JSON.stringify(this.#call.args), out)
      this.#call = undefined
    } else this.#endCall(out)
    let outcome: { reason: StopReason; failure?: StopFailure } | undefined
    if (raw !== undefined) outcome = this.#blocked ? { reason: "refusal" } : finishOutcome(raw)
    if (outcome?.reason === "end" && this.#calls > 0) outcome.reason = "tool_use"
    closeResponse(out, {
      missing: raw === undefined ? "a finishReason" : undefined,
      failed: this.#failed,
      stop: outcome && raw ? { reason: outcome.reason, raw, message: this.#finishMessage } : undefined,
      stopError: outcome?.failure && raw ? stopFailureError(raw, outcome.failure, this.#finishMessage) : undefined,
      usage: this.#usage,
    })
  }

  fail(error: StreamErrorEvent, out: StreamEvent[]): void {
    if (this.#done || this.#finish !== undefined) {
      // The finish reason arrived: the response is whole, the failure came after it.
      count(this.stats.ignored, "failure after the response ended")
      this.end(out)
      return
    }
    out.push(error)
    this.#failed = true
    this.end(out)
  }

  /** Abandons the open response (its unfinished call reported cut off); the next chunk starts the new one. */
  #restart(out: StreamEvent[]): void {
    this.stats.restarts++
    if (this.#call) partialToolCall(this.#call.id, this.#call.name, JSON.stringify(this.#call.args), out)
    this.#call = undefined
    this.#started = false
    this.#calls = 0
    this.#inThought = false
    this.#usage = undefined
    this.#failed = false
  }

  #part(part: Record<string, unknown>, out: StreamEvent[]): void {
    const signature = str(part.thoughtSignature)
    const fc = obj(part.functionCall)
    if (part.thought !== true) this.#inThought = false
    if (fc) {
      this.#functionCall(fc, signature, out)
      return
    }
    const text = str(part.text)
    if (text !== undefined) {
      this.#endCall(out)
      if (part.thought === true) {
        if (!this.#inThought) this.#block++
        this.#inThought = true
        if (text || signature) {
          const ev: StreamEvent = { type: "thinking", delta: text, index: this.#block }
          if (signature) ev.signature = signature
          out.push(ev)
        }
        return
      }
      if (signature) this.#signatureBlock(signature, out)
      if (text) out.push({ type: "text", delta: text })
      return
    }
    const kind = Object.keys(part).find((k) => k !== "thoughtSignature" && k !== "thought")
    if (kind) count(this.stats.ignored, kind)
    else if (signature) this.#signatureBlock(signature, out)
  }

  /** A signature on a non-thought part: an empty thinking block of its own, just before that part's text. */
  #signatureBlock(signature: string, out: StreamEvent[]): void {
    this.#block++
    out.push({ type: "thinking", delta: "", signature, index: this.#block })
    this.#inThought = false
  }

  #functionCall(fc: Record<string, unknown>, signature: string | undefined, out: StreamEvent[]): void {
    const name = str(fc.name)
    const willContinue = fc.willContinue === true
    if (name) {
      this.#endCall(out)
      const id = str(fc.id) ?? `${this.#responseId ?? "gemini"}_${this.#calls}`
      this.#calls++
      const args = obj(fc.args) ? { ...obj(fc.args) } : {}
      this.#call = { id, name, args, signature, openStrings: new Set() }
      out.push({ type: "tool_call_start", id, name })
      this.#applyPartialArgs(fc.partialArgs, out)
      if (!willContinue) this.#endCall(out)
      return
    }
    const call = this.#call
    if (!call) {
      if (Object.keys(fc).length > 0) count(this.stats.unknown, "functionCall continuation without a call")
      return
    }
    if (signature && !call.signature) call.signature = signature
    this.#applyPartialArgs(fc.partialArgs, out)
    if (!willContinue) this.#endCall(out)
  }

  #applyPartialArgs(partialArgs: unknown, out: StreamEvent[]): void {
    const call = this.#call
    if (!call || !Array.isArray(partialArgs)) return
    for (const entry of partialArgs) {
      const arg = obj(entry)
      const path = str(arg?.jsonPath)
      if (!arg || !path) continue
      const valueKey = Object.keys(arg).find((k) => k.endsWith("Value"))
      if (!valueKey) continue
      const value = valueKey === "nullValue" ? null : arg[valueKey]
      const keys = parseJsonPath(path)
      if (!keys) {
        count(this.stats.unknown, `jsonPath ${path}`)
        continue
      }
      const append = typeof value === "string" && call.openStrings.has(path)
      if (!setPath(call.args, keys, value, append)) {
        out.push({
          type: "error",
          kind: "invalid-arguments",
          message: `tool call ${call.id}: jsonPath ${path} goes through a key that is never written (${UNSAFE_KEYS.join(", ")})`,
          raw: JSON.stringify(entry),
          toolCallId: call.id,
        })
        continue
      }
      if (arg.willContinue === true && typeof value === "string") call.openStrings.add(path)
      else call.openStrings.delete(path)
    }
  }

  #endCall(out: StreamEvent[]): void {
    const call = this.#call
    if (!call) return
    this.#call = undefined
    out.push({ type: "tool_call_delta", id: call.id, argsDelta: JSON.stringify(call.args) })
    out.push(
      call.signature
        ? { type: "tool_call_end", id: call.id, input: call.args, signature: call.signature }
        : { type: "tool_call_end", id: call.id, input: call.args },
    )
  }
}

/** Gemini usage → ours (see the class comment). */
export function geminiUsage(usage: Record<string, unknown>): Usage {
  const prompt = typeof usage.promptTokenCount === "number" ? usage.promptTokenCount : 0
  const cached = typeof usage.cachedContentTokenCount === "number" ? usage.cachedContentTokenCount : 0
  const toolPrompt = typeof usage.toolUsePromptTokenCount === "number" ? usage.toolUsePromptTokenCount : 0
  const candidates = typeof usage.candidatesTokenCount === "number" ? usage.candidatesTokenCount : 0
  const thoughts = typeof usage.thoughtsTokenCount === "number" ? usage.thoughtsTokenCount : 0
  const result: Usage = {
    input: Math.max(0, prompt - cached) + toolPrompt,
    output: candidates + thoughts,
    cacheRead: cached,
    cacheWrite: 0,
  }
  if (thoughts > 0) result.reasoning = thoughts
  return result
}

/** Splits `$.a.b[0]["c d"]` into keys and indexes; undefined when the path is not of that form. */
export function parseJsonPath(path: string): (string | number)[] | undefined {
  if (!path.startsWith("$")) return undefined
  const keys: (string | number)[] = []
  const re = /\.([^.[\]]+)|\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]|\["((?:[^"\\]|\\.)*)"\]/y
  re.lastIndex = 1
  while (re.lastIndex < path.length) {
    const m = re.exec(path)
    if (!m) return undefined
    if (m[1] !== undefined) keys.push(m[1])
    else if (m[2] !== undefined) keys.push(Number(m[2]))
    else keys.push((m[3] ?? m[4] ?? "").replace(/\\(.)/g, "$1"))
  }
  return keys
}

/** Keys that would reach an object's prototype rather than the object: never written. */
const UNSAFE_KEYS = ["__proto__", "constructor", "prototype"]

/**
 * Writes `value` at `keys` under `root`, creating objects and arrays on the way and descending only
 * into the node's own properties. False (nothing written) when a key is one of UNSAFE_KEYS.
 */
function setPath(root: Record<string, unknown>, keys: (string | number)[], value: unknown, append: boolean): boolean {
  if (keys.some((key) => typeof key === "string" && UNSAFE_KEYS.includes(key))) return false
  let node: Record<string | number, unknown> = root
  for (const [i, key] of keys.entries()) {
    const current = Object.hasOwn(node, key) ? node[key] : undefined
    if (i === keys.length - 1) {
      node[key] = append && typeof current === "string" ? current + (value as string) : value
      break
    }
    if (typeof current === "object" && current !== null) node = current as Record<string | number, unknown>
    else {
      const child = typeof keys[i + 1] === "number" ? [] : {}
      node[key] = child
      node = child as Record<string | number, unknown>
    }
  }
  return true
}

/** Turns a non-streaming generateContent body into the same events a stream would give. */
export function geminiResponseEvents(body: unknown): StreamEvent[] {
  const decoder = new GeminiDecoder()
  const out: StreamEvent[] = []
  decoder.push(body, out)
  decoder.end(out)
  return out
}
