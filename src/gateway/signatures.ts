/**
 * Sealed signatures: in translate mode a thinking signature (and a signature riding on a tool call) goes to the
 * client wrapped with the model that made it and, for OpenAI Responses, the reasoning item's id. Whatever
 * client format carries it, it comes back whole: unsealed, the block knows its model again, so portability
 * sends it only to that model (another model's thinking goes as text, its signature nowhere), and a Responses
 * reasoning item gets its id back. A signature the gateway never sealed is the client's own and keeps
 * promptline's default (taken as the target model's).
 */
import type { Block, Message } from "../history/message.js"
import type { StreamEvent } from "../providers/stream.js"

const MARK = "promptline-signature:1"

/** What a sealed signature holds. */
interface Sealed {
  model: string
  signature: string
  id?: string
}

/** The signature as the client gets it: base64 text (as every provider's signature is), opaque to the client. */
export function sealSignature(sealed: Sealed): string {
  return Buffer.from(JSON.stringify([MARK, sealed.model, sealed.signature, sealed.id ?? null])).toString("base64")
}

/** The sealed parts of a signature, or undefined for a signature the gateway did not seal. */
export function unsealSignature(text: string): Sealed | undefined {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text)) return undefined
  let parts: unknown
  try {
    parts = JSON.parse(Buffer.from(text, "base64").toString("utf8"))
  } catch {
    return undefined
  }
  if (!Array.isArray(parts) || parts[0] !== MARK) return undefined
  const [, model, signature, id] = parts as unknown[]
  if (typeof model !== "string" || typeof signature !== "string") return undefined
  return typeof id === "string" ? { model, signature, id } : { model, signature }
}

/** The upstream's events with their signatures sealed for `model` (one batch; see SignatureSealer for a stream). */
export function sealEvents(events: readonly StreamEvent[], model: string): StreamEvent[] {
  return new SignatureSealer(model).push(events)
}

/**
 * Seals the signatures of one answer's events as they stream. Thinking from an upstream that signs nothing
 * (DeepSeek, Chat servers) gets a sealed empty signature at the end of its block: a client API whose thinking
 * always carries one (Anthropic's) then has a signature to send back, and the thinking returns to that model.
 */
export class SignatureSealer {
  readonly #model: string
  /** The thinking block being streamed without a signature so far: its index and reasoning id. */
  #unsigned: { index: number | undefined; id: string | undefined } | undefined

  constructor(model: string) {
    this.#model = model
  }

  /** The next events, sealed; a closing signature is put before the event that ends an unsigned block. */
  push(events: readonly StreamEvent[]): StreamEvent[] {
    const out: StreamEvent[] = []
    for (const event of events) {
      if (event.type === "thinking") {
        if (this.#unsigned && this.#unsigned.index !== event.index) this.#close(out)
        if (event.signature) {
          const id = event.id ?? this.#unsigned?.id
          this.#unsigned = undefined
          out.push({ ...event, signature: this.#seal(event.signature, id) })
          continue
        }
        if (event.delta !== "" || event.id !== undefined) this.#unsigned = { index: event.index, id: event.id }
        out.push(event)
        continue
      }
      if (event.type !== "usage") this.#close(out)
      out.push(
        event.type === "tool_call_end" && event.signature
          ? { ...event, signature: this.#seal(event.signature) }
          : event,
      )
    }
    return out
  }

  #close(out: StreamEvent[]): void {
    const open = this.#unsigned
    if (!open) return
    this.#unsigned = undefined
    const at = open.index === undefined ? {} : { index: open.index }
    out.push({ type: "thinking", delta: "", ...at, signature: this.#seal("", open.id) })
  }

  #seal(signature: string, id?: string): string {
    return sealSignature({ model: this.#model, signature, ...(id ? { id } : {}) })
  }
}

/** The client's history with the gateway's sealed signatures opened and their blocks marked with their model. */
export function unsealMessages(messages: readonly Message[]): Message[] {
  return messages.map((message) => {
    if (message.role !== "assistant") return message
    let changed = false
    const content = message.content.map((block): Block => {
      if ((block.type !== "thinking" && block.type !== "tool_use") || !block.signature) return block
      const sealed = unsealSignature(block.signature)
      if (!sealed) return block
      changed = true
      const opened = { ...block, signature: sealed.signature, model: sealed.model }
      return block.type === "thinking" && sealed.id ? { ...opened, id: sealed.id } : opened
    })
    return changed ? { ...message, content } : message
  })
}
