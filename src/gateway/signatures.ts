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

/** The upstream's events with their signatures sealed for `model`. */
export function sealEvents(events: readonly StreamEvent[], model: string): StreamEvent[] {
  return events.map((event) => {
    if ((event.type !== "thinking" && event.type !== "tool_call_end") || !event.signature) return event
    const id = event.type === "thinking" ? event.id : undefined
    return { ...event, signature: sealSignature({ model, signature: event.signature, ...(id ? { id } : {}) }) }
  })
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
