/**
 * The conversation a Responses WebSocket connection keeps for its translated responses, as OpenAI's WebSocket
 * mode keeps its connection-local state: the input and output items of the connection's most recent response,
 * so that a `response.create` naming that response in `previous_response_id` and sending only the new input
 * items is rebuilt into the whole request a stateless upstream needs. Only the most recent response is kept, and
 * only while its items stay within a byte limit; an id the connection does not hold is
 * `previous_response_not_found` (the gateway stores nothing, so `store: true` cannot find older ones either).
 */
import type { ResponsesErrorInput } from "../providers/openai-responses/errors.js"
import { GatewayError } from "./errors.js"

/** Fields of a `response.create` event that belong to the transport, not to the request body. */
const TRANSPORT_FIELDS = ["type", "stream", "stream_options", "background", "generate", "previous_response_id"]

/** A `response.create` read for translation: the whole request body, and the input items it stands for. */
export interface RebuiltRequest {
  /** The request body with the earlier items before the new input, without transport fields. */
  body: Record<string, unknown>
  /** Every input item of the request (the earlier conversation, then the new input). */
  items: unknown[]
  /** The response this one continues, when it named one. */
  previous?: string
}

/** The error a continuation of an unknown response gets, in OpenAI's words. */
function notFound(id: string): GatewayError {
  const input: ResponsesErrorInput = {
    kind: "invalid-request",
    message: `Previous response with id '${id}' not found.`,
    param: "previous_response_id",
    code: "previous_response_not_found",
  }
  return new GatewayError(input, 400)
}

/** The input of a request as a list of items (a string is one user message). */
function inputItems(input: unknown): unknown[] {
  if (input === undefined || input === null) return []
  if (typeof input === "string") return [{ type: "message", role: "user", content: input }]
  if (Array.isArray(input)) return input
  throw new GatewayError({ kind: "invalid-request", message: "input: must be a string or a list of input items" })
}

/** One connection's conversation: the items of its most recent response. */
export class SocketConversation {
  #last: { id: string; items: unknown[] } | undefined

  /** `limit`: the most bytes of items kept (the gateway's body limit: no more than a client could send). */
  constructor(private readonly limit: number) {}

  /** The id of the response held, if any. */
  get held(): string | undefined {
    return this.#last?.id
  }

  /** Rebuilds a `response.create` event into a whole request; throws `previous_response_not_found`. */
  rebuild(event: Record<string, unknown>): RebuiltRequest {
    const body: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(event)) if (!TRANSPORT_FIELDS.includes(key)) body[key] = value
    const previous = event.previous_response_id
    if (previous === undefined || previous === null) {
      const items = inputItems(event.input)
      return { body, items }
    }
    if (typeof previous !== "string")
      throw new GatewayError({
        kind: "invalid-request",
        message: "previous_response_id: must be a string",
        param: "previous_response_id",
      })
    if (this.#last?.id !== previous) throw notFound(previous)
    const items = [...this.#last.items, ...inputItems(event.input)]
    body.input = items
    return { body, items, previous }
  }

  /** Keeps a finished response: the request's items and the response's output items (dropped over the limit). */
  remember(id: string, items: readonly unknown[], output: readonly unknown[]): void {
    const all = [...items, ...output]
    this.#last = Buffer.byteLength(JSON.stringify(all)) <= this.limit ? { id, items: all } : undefined
  }

  /** Forgets a response (a continuation of it failed): continuing from it is then `previous_response_not_found`. */
  evict(id: string): void {
    if (this.#last?.id === id) this.#last = undefined
  }

  /** Forgets everything (the connection closed). */
  clear(): void {
    this.#last = undefined
  }
}
