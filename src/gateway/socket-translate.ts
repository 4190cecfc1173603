/**
 * Translate mode over the Responses WebSocket: each `response.create` is rebuilt into a whole Responses request
 * (the connection's conversation before its new input, when it names `previous_response_id`), translated to the
 * route's upstream over HTTP as a POST would be, and the answer written as the Responses stream events, one JSON
 * message each, by the same encoder the HTTP stream uses. Responses run one at a time, in the order the client
 * sent them; a closed connection aborts the running one and frees the conversation.
 */
import type { IncomingMessage } from "node:http"
import type { WebSocket } from "ws"
import { ProviderError } from "../providers/errors.js"
import { formatModule } from "../providers/formats.js"
import { openAIErrorFields } from "../providers/openai-responses/errors.js"
import { ResponsesStreamEncoder } from "../providers/openai-responses/stream-encode.js"
import type { StreamEvent } from "../providers/stream.js"
import type { ErrorInput } from "../providers/types.js"
import { errorAnswer, errorInputOf, GatewayError } from "./errors.js"
import { conversationKey, type GatewayRecord, type RecordedBody, type RecordUsage } from "./record.js"
import type { RoutePlan } from "./routing.js"
import { clientKey, redactDeep, redactText } from "./secrets.js"
import { type SocketContext, socketRecord } from "./socket-context.js"
import { SocketConversation } from "./socket-conversation.js"
import { upstreamKey } from "./target.js"
import { openWithDeferredTools, type TranslatingCall } from "./translate.js"

/** The most `response.create` events that may wait behind the running one on a connection. */
export const MAX_WAITING_RESPONSES = 16

/** A WebSocket `error` event: the HTTP path's Responses error fields, its status, and the wait in the message. */
export function socketErrorEvent(input: ErrorInput & { code?: string }, status?: number): Record<string, unknown> {
  const answer = errorAnswer("openai-responses", input, status)
  // No header can carry `retry-after` here: the wait is written into the message, as OpenAI words it.
  const fields = openAIErrorFields(input.kind, input.message, {
    ...(input.retryAfterMs !== undefined ? { retryAfterMs: input.retryAfterMs } : {}),
    ...(input.param !== undefined ? { param: input.param } : {}),
    ...(input.code !== undefined ? { code: input.code } : {}),
  })
  return { type: "error", status: answer.status, error: fields }
}

/** One translated response's state, filled in as it travels (what the record is made of). */
class SocketTurn implements TranslatingCall {
  readonly abort = new AbortController()
  readonly clientFormat = "openai-responses" as const
  readonly secrets: (string | undefined)[] = []
  conversationKey?: string
  dropped: string[] = []
  sent?: RecordedBody
  usage?: RecordUsage
  stop?: string
  error?: { kind: string; message: string }
  status = 200
  firstByteAt?: number

  constructor(
    readonly seq: number,
    readonly startedAt: number,
    public body: unknown,
  ) {}
}

/** A `response.create` waiting its turn. */
interface Pending {
  event: Record<string, unknown>
  plan: RoutePlan
  model: string
}

/** The translating side of one client connection. */
export class SocketTranslator {
  readonly #conversation: SocketConversation
  readonly #queue: Pending[] = []
  #running: SocketTurn | undefined
  #draining = false
  #closed = false

  constructor(
    private readonly client: WebSocket,
    private readonly req: IncomingMessage,
    private readonly url: URL,
    private readonly context: SocketContext,
  ) {
    this.#conversation = new SocketConversation(context.settings.bodyLimit)
    client.on("close", () => this.close())
  }

  /** Takes a `response.create` routed to a translating route: run now, or after the ones before it. */
  accept(event: Record<string, unknown>, plan: RoutePlan, model: string): void {
    if (this.#closed) return
    if (this.#queue.length >= MAX_WAITING_RESPONSES) {
      this.#send(
        socketErrorEvent(
          {
            kind: "invalid-request",
            message: `${MAX_WAITING_RESPONSES} responses already wait on this connection; responses run one at a time, send the next after the last ends`,
          },
          400,
        ),
      )
      return
    }
    this.#queue.push({ event, plan, model })
    // Each response answers its own failures; what escapes (a record hook that threw) is reported, not thrown.
    this.#drain().catch((error: unknown) => this.context.report(error, "websocket"))
  }

  /** The client went away: the running response is aborted, the waiting ones dropped, the conversation freed. */
  close(): void {
    if (this.#closed) return
    this.#closed = true
    this.#queue.length = 0
    this.#conversation.clear()
    this.#running?.abort.abort(new ProviderError("network", "the client went away"))
  }

  async #drain(): Promise<void> {
    if (this.#draining) return
    this.#draining = true
    try {
      for (let next = this.#queue.shift(); next && !this.#closed; next = this.#queue.shift()) await this.#respond(next)
    } finally {
      this.#draining = false
    }
  }

  #send(payload: Record<string, unknown>): void {
    if (this.client.readyState === this.client.OPEN) this.client.send(JSON.stringify(payload))
  }

  async #respond({ event, plan, model }: Pending): Promise<void> {
    const { context } = this
    const turn = new SocketTurn(context.nextSeq(), context.clock(), event)
    turn.secrets.push(clientKey(this.req.headers, this.url.searchParams), context.settings.token)
    this.#running = turn
    const ended = context.began()
    let previous: string | undefined
    try {
      const rebuilt = this.#conversation.rebuild(event)
      previous = rebuilt.previous
      turn.body = rebuilt.body
      if (event.background === true)
        throw new GatewayError({
          kind: "invalid-request",
          message: "background responses are not supported over WebSocket",
          param: "background",
        })
      // A response id of the gateway's own: unique on the connection, whatever ids the upstream gives.
      const id = `resp_gw_${turn.seq}`
      if (event.generate === false) {
        // A warm-up: nothing is generated; the input is kept for the next response to continue from.
        const warm = new ResponsesStreamEncoder({ model, id, created: Math.floor(turn.startedAt / 1000) })
        const none = { type: "usage", input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } as const
        this.#write(turn, warm, [{ type: "start" }, none, { type: "stop", reason: "end" }], true)
        this.#conversation.remember(id, rebuilt.items, [])
        return
      }
      const decoded = formatModule("openai-responses").decodeRequest(rebuilt.body, { stream: true })
      turn.conversationKey = conversationKey(this.req.headers, decoded)
      const key = upstreamKey(plan.upstream, context.env, {
        headers: this.req.headers,
        query: this.url.searchParams,
        tokenInUse: context.settings.token !== undefined,
      })
      const translation = await openWithDeferredTools(turn, decoded, {
        plan,
        body: rebuilt.body,
        route: { stream: true },
        key,
        settings: context.settings,
        models: context.models,
        counter: context.counter,
        changeLogs: context.changeLogs,
      })
      const written = new ResponsesStreamEncoder({ ...translation.encodeOptions, id })
      await translation.read((batch) => this.#write(turn, written, batch))
      this.#write(turn, written, [], true)
      if (turn.abort.signal.aborted) turn.error = { kind: "network", message: "the client went away" }
      const final = written.final
      if (final?.status === "failed") {
        if (previous !== undefined) this.#conversation.evict(previous)
      } else if (!this.#closed)
        this.#conversation.remember(id, rebuilt.items, Array.isArray(final?.output) ? final.output : [])
    } catch (error) {
      const { input, status } = errorInputOf(error)
      const safe = { ...input, message: redactText(input.message, turn.secrets) }
      const frame = socketErrorEvent(safe, status)
      turn.status = frame.status as number
      turn.error = { kind: safe.kind, message: safe.message }
      // A continuation that failed frees the response it continued, as OpenAI's connection-local state does.
      if (previous !== undefined) this.#conversation.evict(previous)
      turn.firstByteAt ??= context.clock()
      this.#send(frame)
    } finally {
      this.#running = undefined
      ended()
      context.finish(this.#record(turn, event, plan, model))
    }
  }

  /** Writes a batch of events as Responses stream events, one message each (`end`: the encoder's closing events). */
  #write(turn: SocketTurn, encoder: ResponsesStreamEncoder, batch: readonly StreamEvent[], end = false): void {
    const from = encoder.payloads.length
    for (const e of batch) encoder.push(e)
    if (end) encoder.end()
    if (encoder.payloads.length > from) turn.firstByteAt ??= this.context.clock()
    for (const payload of encoder.payloads.slice(from)) this.#send(payload)
  }

  #record(turn: SocketTurn, event: Record<string, unknown>, plan: RoutePlan, model: string): GatewayRecord {
    const record = socketRecord(
      {
        seq: turn.seq,
        startedAt: turn.startedAt,
        latencyMs: Math.max(0, this.context.clock() - turn.startedAt),
        model,
        status: turn.status,
        dropped: turn.dropped,
        conversationKey: turn.conversationKey ?? "",
      },
      plan,
      { req: this.req, url: this.url, event },
    )
    if (turn.firstByteAt !== undefined) record.firstByteMs = Math.max(0, turn.firstByteAt - turn.startedAt)
    if (turn.usage) record.usage = turn.usage
    if (turn.stop) record.stop = turn.stop
    if (turn.error) record.error = turn.error
    if (turn.sent) record.sent = turn.sent
    return redactDeep(record, turn.secrets)
  }
}
