/**
 * Translate mode over the Responses WebSocket: each `response.create` is rebuilt into a whole Responses request
 * (the connection's conversation before its new input, when it names `previous_response_id`), translated to the
 * route's upstream over HTTP as a POST would be (falling back along the route's upstreams as a POST does), and the
 * answer written as the Responses stream events, one JSON message each, by the same encoder the HTTP stream uses.
 * Responses run one at a time, in the order the client sent them; a closed connection aborts the running one and
 * frees the conversation.
 */
import type { WebSocket } from "ws"
import { ProviderError } from "../providers/errors.js"
import { formatModule } from "../providers/formats.js"
import { openAIErrorFields } from "../providers/openai-responses/errors.js"
import { ResponsesStreamEncoder } from "../providers/openai-responses/stream-encode.js"
import type { StreamEvent } from "../providers/stream.js"
import type { ErrorInput } from "../providers/types.js"
import { conversationKey } from "./conversation-key.js"
import { errorAnswer, errorInputOf, GatewayError } from "./errors.js"
import { attemptAlong, chainFailed, chainOf, linksOf, type Tried } from "./fallback.js"
import { type ClientSide, NOTHING_LEARNED, outcomeOf, type PipelineResult, type RecordedBody } from "./outcome.js"
import { recordOf } from "./record.js"
import type { RequestContext } from "./request.js"
import { redactText } from "./secrets.js"
import type { ServingConfig } from "./serving.js"
import { SocketConversation } from "./socket-conversation.js"
import type { SocketGateway, SocketRequest } from "./socket-request.js"
import {
  attemptTranslation,
  type ClientAsk,
  type TranslatingRequest,
  type Translation,
  type TranslationAttempt,
} from "./translation.js"

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

/** A `response.create` waiting its turn, with the configuration it arrived under. */
interface Pending {
  request: SocketRequest
  serving: ServingConfig
}

/** The translating side of one client connection. */
export class SocketTranslator {
  readonly #conversation: SocketConversation
  readonly #queue: Pending[] = []
  /** The running response's cancellation. */
  #running: AbortController | undefined
  #draining = false
  #closed = false

  constructor(
    private readonly client: WebSocket,
    private readonly gateway: SocketGateway,
    bodyLimit: number,
  ) {
    this.#conversation = new SocketConversation(bodyLimit)
    client.on("close", () => this.close())
  }

  /** Takes a `response.create` routed to a translating route: run now, or after the ones before it. */
  accept(request: SocketRequest, serving: ServingConfig): void {
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
    this.#queue.push({ request, serving })
    // Each response answers its own failures; what escapes (a record hook that threw) is reported, not thrown.
    this.#drain().catch((error: unknown) => this.gateway.report(error, "websocket"))
  }

  /** The client went away: the running response is aborted, the waiting ones dropped, the conversation freed. */
  close(): void {
    if (this.#closed) return
    this.#closed = true
    this.#queue.length = 0
    this.#conversation.clear()
    this.#running?.abort(new ProviderError("network", "the client went away"))
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

  #send(payload: Record<string, unknown>): number {
    if (this.client.readyState !== this.client.OPEN) return 0
    const text = JSON.stringify(payload)
    this.client.send(text)
    return Buffer.byteLength(text)
  }

  /** One translated response, top to bottom: rebuilt, decoded, one attempt, the answer written, one record. */
  async #respond({ request, serving }: Pending): Promise<void> {
    const { shared } = this.gateway
    const event = request.body as Record<string, unknown>
    const abort = new AbortController()
    this.#running = abort
    const ended = this.gateway.began()
    const side: ClientSide = { status: 200, bytes: 0 }
    let known: RequestContext = request
    let learned: PipelineResult = NOTHING_LEARNED
    let previous: string | undefined
    try {
      const rebuilt = this.#conversation.rebuild(event)
      previous = rebuilt.previous
      if (event.background === true)
        throw new GatewayError({
          kind: "invalid-request",
          message: "background responses are not supported over WebSocket",
          param: "background",
        })
      // A response id of the gateway's own: unique on the connection, whatever ids the upstream gives.
      const id = `resp_gw_${request.seq}`
      if (event.generate === false) {
        // A warm-up: nothing is generated; the input is kept for the next response to continue from.
        const warm = new ResponsesStreamEncoder({
          model: request.model,
          id,
          created: Math.floor(request.startedAt / 1000),
        })
        const none = { type: "usage", input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } as const
        this.#write(side, warm, [{ type: "start" }, none, { type: "stop", reason: "end" }], true)
        this.#conversation.remember(id, rebuilt.items, [])
        return
      }
      const decoded = formatModule("openai-responses").decodeRequest(rebuilt.body, { stream: true })
      const key = conversationKey(request.headers, decoded)
      const translating = { ...request, decoded, ...(key !== undefined ? { conversationKey: key } : {}) }
      known = translating
      const client = { body: rebuilt.body, path: { stream: true } }
      const attempt = await this.#attempt(translating, client, serving, abort.signal)
      learned = attempt.learned
      if (!attempt.ok) throw attempt.error
      const written = new ResponsesStreamEncoder({ ...attempt.started.encodeOptions, id })
      let facts = await attempt.started.read((batch) => this.#write(side, written, batch))
      this.#write(side, written, [], true)
      if (abort.signal.aborted) facts = { ...facts, error: { kind: "network", message: "the client went away" } }
      learned = { ...learned, facts }
      const final = written.final
      if (final?.status === "failed") {
        if (previous !== undefined) this.#conversation.evict(previous)
      } else if (!this.#closed)
        this.#conversation.remember(id, rebuilt.items, Array.isArray(final?.output) ? final.output : [])
    } catch (error) {
      const { input, status } = errorInputOf(error)
      const safe = { ...input, message: redactText(input.message, request.secrets) }
      const frame = socketErrorEvent(safe, status)
      side.status = frame.status as number
      side.told = { kind: safe.kind, message: safe.message }
      // A continuation that failed frees the response it continued, as OpenAI's connection-local state does.
      if (previous !== undefined) this.#conversation.evict(previous)
      side.firstByteAt ??= shared.clock()
      side.bytes += this.#send(frame)
    } finally {
      this.#running = undefined
      ended()
      const outcome = outcomeOf(side, learned, shared.clock())
      const asKnown = known
      this.gateway.finish(() => recordOf(asKnown, outcome))
    }
  }

  /**
   * The response's upstream call: to the route's upstream, or along the route's upstreams as an HTTP request
   * goes (fallback.ts), each translated for; what was learned of it so far, for the record.
   */
  async #attempt(
    request: SocketRequest & TranslatingRequest,
    client: ClientAsk,
    serving: ServingConfig,
    signal: AbortSignal,
  ): Promise<
    { ok: true; started: Translation; learned: PipelineResult } | { ok: false; error: unknown; learned: PipelineResult }
  > {
    const { shared } = this.gateway
    const learnedOf = (made: { dropped: readonly string[]; sent?: RecordedBody }, chain?: PipelineResult["chain"]) => ({
      facts: {},
      dropped: made.dropped,
      ...(made.sent ? { sent: made.sent } : {}),
      ...(chain ? { chain } : {}),
    })
    if (!request.fallbacks) {
      const made = await attemptTranslation(request, request.target, client, serving, shared, signal)
      return made.ok
        ? { ok: true, started: made.started, learned: learnedOf(made) }
        : { ok: false, error: made.failure.error, learned: learnedOf(made) }
    }
    const along = await attemptAlong(
      linksOf(request),
      async ({ step, target }, hold, headersTimeoutMs): Promise<Tried<TranslationAttempt & { ok: true }>> => {
        const stepRequest = { ...request, route: { ...request.route, ...step } }
        const made = await attemptTranslation(
          stepRequest,
          target,
          client,
          serving,
          shared,
          signal,
          headersTimeoutMs,
          hold,
        )
        return made.ok ? { ok: true, made } : made
      },
      () => 200,
      { serving, shared, signal },
    )
    if (along.ok) return { ok: true, started: along.made.started, learned: learnedOf(along.made, chainOf(along)) }
    const failed = chainFailed(along, shared.clock())
    const gone = new ProviderError("network", "the client went away; the call was cancelled")
    return { ok: false, error: failed.error ?? gone, learned: failed.learned }
  }

  /** Writes a batch of events as Responses stream events, one message each (`end`: the encoder's closing events). */
  #write(side: ClientSide, encoder: ResponsesStreamEncoder, batch: readonly StreamEvent[], end = false): void {
    const from = encoder.payloads.length
    for (const e of batch) encoder.push(e)
    if (end) encoder.end()
    if (encoder.payloads.length > from) side.firstByteAt ??= this.gateway.shared.clock()
    for (const payload of encoder.payloads.slice(from)) side.bytes += this.#send(payload)
  }
}
