import { classifyStreamError } from "../errors.js"
import {
  count,
  type DecodeStats,
  emptyStats,
  obj,
  type PayloadDecoder,
  partialToolCall,
  type StopReason,
  type StreamEvent,
  str,
  type Usage,
} from "../stream.js"

/** Gemini finish reasons → ours. Safety-type reasons count as refusals. */
const STOP: Record<string, StopReason> = {
  STOP: "end",
  MAX_TOKENS: "length",
  SAFETY: "refusal",
  RECITATION: "refusal",
  BLOCKLIST: "refusal",
  PROHIBITED_CONTENT: "refusal",
  SPII: "refusal",
  IMAGE_SAFETY: "refusal",
  LANGUAGE: "refusal",
  MALFORMED_FUNCTION_CALL: "error",
  UNEXPECTED_TOOL_CALL: "error",
  TOO_MANY_TOOL_CALLS: "error",
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
      const message = str(error.message) ?? "stream error"
      const status = typeof error.code === "number" ? error.code : undefined
      out.push({ type: "error", kind: classifyStreamError(str(error.status) ?? "", message, status), message })
      this.#failed = true
      return
    }
    if (!this.#started) {
      this.#started = true
      this.#responseId = str(chunk.responseId)
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
        this.#endCall(out)
      }
    }
    const blocked = str(obj(chunk.promptFeedback)?.blockReason)
    if (blocked) {
      this.#finish = blocked
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
    if (this.#finish === undefined || this.#failed) {
      if (this.#call) partialToolCall(this.#call.id, this.#call.name, JSON.stringify(this.#call.args), out)
      this.#call = undefined
      if (!this.#failed)
        out.push({ type: "error", kind: "truncated", message: "the stream ended without a finishReason" })
      if (this.#usage) out.push({ type: "usage", ...this.#usage })
      out.push({ type: "stop", reason: "error" })
      return
    }
    this.#endCall(out)
    if (this.#usage) out.push({ type: "usage", ...this.#usage })
    const raw = this.#finish
    let reason = this.#blocked ? "refusal" : (STOP[raw] ?? (raw.endsWith("_SAFETY") ? "refusal" : "end"))
    if (reason === "end" && this.#calls > 0) reason = "tool_use"
    out.push({ type: "stop", reason, raw })
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
