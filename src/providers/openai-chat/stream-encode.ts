/**
 * Normalized stream events written as a Chat Completions stream: `chat.completion.chunk` server-sent events
 * shaped the way OpenAI (or, in the DeepSeek flavour, DeepSeek) sends them, ending with `data: [DONE]`.
 *
 * - OpenAI: the first delta carries `role` (with `content: ""` and `refusal: null`); thinking goes out as
 *   `reasoning_content` (what compatible servers send); each tool call opens with its index, id, type and name
 *   and an empty argument string, then argument pieces; `finish_reason` comes on an empty delta; with
 *   `includeUsage` every chunk carries `usage: null` and a last chunk with no choices carries the usage.
 * - DeepSeek: every chunk carries `usage` (null until the finishing chunk, which holds it with the cache hit and
 *   miss counts); deltas name the absent half as null (`content: null` beside reasoning, and the reverse once
 *   the answer reasoned).
 *
 * Signatures, redacted thinking and a restarted response cannot be said in this format and are left out.
 */
import type { StopReason, StreamEvent, Usage } from "../stream.js"
import type { StreamEncodeOptions, StreamEncoder } from "../types.js"
import { chatErrorPayload } from "./errors.js"

/** Which server's stream to write: OpenAI's own, or DeepSeek's. */
export type ChatStreamFlavour = "openai-chat" | "deepseek"

/** Our stop reasons as Chat Completions finish reasons (an error stop is written as an error payload instead). */
export const CHAT_FINISH: Record<Exclude<StopReason, "error">, string> = {
  end: "stop",
  tool_use: "tool_calls",
  length: "length",
  refusal: "content_filter",
}

/** A deterministic response id for a model, when the caller gives none. */
export function chatResponseId(model: string): string {
  let h = 0x811c9dc5
  for (let i = 0; i < model.length; i++) h = Math.imul(h ^ model.charCodeAt(i), 0x01000193) >>> 0
  return `chatcmpl-${h.toString(16).padStart(8, "0")}`
}

/**
 * Chat Completions usage for our usage: the prompt includes cache reads and writes. OpenAI lists every detail
 * field; DeepSeek lists cached and reasoning tokens only (reasoning when there was any) and adds its cache hit
 * and miss counts.
 */
export function chatUsageOf(usage: Usage, flavour: ChatStreamFlavour): Record<string, unknown> {
  const prompt = usage.input + usage.cacheRead + usage.cacheWrite
  const reasoning = usage.reasoning ?? 0
  const figures: Record<string, unknown> = {
    prompt_tokens: prompt,
    completion_tokens: usage.output,
    total_tokens: prompt + usage.output,
  }
  if (flavour === "deepseek") {
    figures.prompt_tokens_details = { cached_tokens: usage.cacheRead }
    if (reasoning > 0) figures.completion_tokens_details = { reasoning_tokens: reasoning }
    figures.prompt_cache_hit_tokens = usage.cacheRead
    figures.prompt_cache_miss_tokens = usage.input + usage.cacheWrite
    return figures
  }
  figures.prompt_tokens_details = { cached_tokens: usage.cacheRead, audio_tokens: 0 }
  figures.completion_tokens_details = {
    reasoning_tokens: reasoning,
    audio_tokens: 0,
    accepted_prediction_tokens: 0,
    rejected_prediction_tokens: 0,
  }
  return figures
}

interface OpenCall {
  index: number
  /** Argument text written so far. */
  args: string
}

/** The Chat Completions stream encoder; one per response. */
export class ChatStreamEncoder implements StreamEncoder {
  readonly #flavour: ChatStreamFlavour
  readonly #id: string
  readonly #model: string
  readonly #created: number
  readonly #includeUsage: boolean
  #opened = false
  #reasoned = false
  #finished = false
  #failed = false
  #usage: Usage | undefined
  #usageWritten = false
  readonly #calls = new Map<string, OpenCall>()

  constructor(options: StreamEncodeOptions, flavour: ChatStreamFlavour = "openai-chat") {
    this.#flavour = flavour
    this.#model = options.model
    this.#id = options.id ?? chatResponseId(options.model)
    this.#created = options.created ?? 0
    this.#includeUsage = options.includeUsage === true
  }

  push(event: StreamEvent): string {
    if (this.#failed) return ""
    switch (event.type) {
      case "start":
        // DeepSeek's first delta depends on whether the answer reasons: it waits for the first content.
        return this.#flavour === "openai-chat" ? this.#open(false) : ""
      case "thinking":
        // An empty reasoning delta still says the answer reasons (DeepSeek's first delta shows it).
        if (event.delta === "") return this.#open(true)
        return (
          this.#open(true) +
          this.#chunk(
            this.#deepseek ? { content: null, reasoning_content: event.delta } : { reasoning_content: event.delta },
          )
        )
      case "text":
        if (event.delta === "") return ""
        return (
          this.#open(false) +
          this.#chunk(
            this.#deepseek && this.#reasoned
              ? { content: event.delta, reasoning_content: null }
              : { content: event.delta },
          )
        )
      case "tool_call_start":
        return this.#startCall(event.id, event.name)
      case "tool_call_delta":
        return this.#args(event.id, event.argsDelta)
      case "tool_call_end": {
        // A call whose arguments never streamed (a whole-body upstream) sends them now, in one piece.
        const call = this.#calls.get(event.id)
        return call && call.args === "" ? this.#args(event.id, JSON.stringify(event.input ?? {})) : ""
      }
      case "usage": {
        const { type: _t, ...usage } = event
        this.#usage = usage
        return this.#finished ? this.#usageChunk() : ""
      }
      case "stop":
        return this.#stop(event.reason)
      case "error":
        // Warnings (arguments that are not JSON, a skipped payload) leave the answer whole.
        if (event.kind === "invalid-arguments" || event.kind === "malformed" || event.kind === "partial-call") return ""
        return this.#fail(event.message, event.kind)
      default:
        return ""
    }
  }

  /** Ends the answer; one that never stopped was cut short: an error payload, never a finish reason. */
  end(): string {
    if (this.#failed) return ""
    if (!this.#finished) return this.#fail("the response ended before it was complete", "server")
    return `${this.#usageChunk()}data: [DONE]\n\n`
  }

  get #deepseek(): boolean {
    return this.#flavour === "deepseek"
  }

  #open(reasoning: boolean): string {
    if (reasoning) this.#reasoned = true
    if (this.#opened) return ""
    this.#opened = true
    const delta = this.#deepseek
      ? reasoning
        ? { role: "assistant", content: null, reasoning_content: "" }
        : { role: "assistant", content: "" }
      : { role: "assistant", content: "", refusal: null }
    return this.#chunk(delta)
  }

  #startCall(id: string, name: string): string {
    if (this.#calls.has(id)) return ""
    const index = this.#calls.size
    this.#calls.set(id, { index, args: "" })
    return (
      this.#open(false) +
      this.#chunk({ tool_calls: [{ index, id, type: "function", function: { name, arguments: "" } }] })
    )
  }

  #args(id: string, piece: string): string {
    const call = this.#calls.get(id)
    if (!call || piece === "") return ""
    call.args += piece
    return this.#chunk({ tool_calls: [{ index: call.index, function: { arguments: piece } }] })
  }

  #stop(reason: StopReason): string {
    if (this.#finished) return ""
    if (reason === "error") return this.#fail("the model stopped with an error", "server")
    this.#finished = true
    const finish = CHAT_FINISH[reason]
    const open = this.#open(false)
    if (!this.#deepseek) return `${open}${this.#chunk({}, finish)}`
    const delta = this.#reasoned ? { content: "", reasoning_content: null } : { content: "" }
    const usage = this.#usage ? chatUsageOf(this.#usage, "deepseek") : null
    this.#usageWritten = this.#usage !== undefined
    return `${open}${this.#chunk(delta, finish, usage)}`
  }

  /** The usage chunk with no choices: OpenAI's when asked for; DeepSeek's only for usage that came after the stop. */
  #usageChunk(): string {
    if (this.#usageWritten || !this.#usage || (!this.#deepseek && !this.#includeUsage)) return ""
    this.#usageWritten = true
    return frame({ ...this.#base(), choices: [], usage: chatUsageOf(this.#usage, this.#flavour) })
  }

  #fail(message: string, kind: string | undefined): string {
    this.#failed = true
    return frame(chatErrorPayload(kind, message, this.#flavour))
  }

  #base(): Record<string, unknown> {
    return { id: this.#id, object: "chat.completion.chunk", created: this.#created, model: this.#model }
  }

  #chunk(delta: Record<string, unknown>, finish: string | null = null, usage: unknown = null): string {
    const chunk: Record<string, unknown> = {
      ...this.#base(),
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    }
    if (this.#deepseek || this.#includeUsage) chunk.usage = usage
    return frame(chunk)
  }
}

function frame(payload: unknown): string {
  return `data: ${JSON.stringify(payload)}\n\n`
}
