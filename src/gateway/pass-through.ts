/**
 * The HTTP same-format pipeline: the client's body goes upstream as it came (only the model name is rewritten
 * when the route names another model), and the upstream's answer comes back byte for byte, its status and
 * end-to-end headers kept; a copy is decoded on the side for the outcome. An answer that is not the API's (an
 * HTML page from a proxy) becomes an error in the client's shape.
 */
import type { IncomingHttpHeaders, IncomingMessage } from "node:http"
import type { WireFormat } from "../models/types.js"
import { StreamDecoder } from "../providers/decode.js"
import { ProviderError } from "../providers/errors.js"
import { formatModule } from "../providers/formats.js"
import type { ProviderErrorKind, StreamEvent } from "../providers/stream.js"
import { type Attempt, type AttemptFailure, callTarget, type StartedAnswer } from "./attempt.js"
import { errorInputOf } from "./errors.js"
import type { PipelineResult, RecordedBody } from "./outcome.js"
import { earlyRecord } from "./record.js"
import type { HttpReply } from "./reply.js"
import type { DecidedRequest } from "./request.js"
import { redactDeep, redactText, StreamRedactor } from "./secrets.js"
import type { GatewayShared, ServingConfig } from "./serving.js"
import type { GatewaySettings } from "./settings.js"
import { forwardHeaders, HOP_BY_HOP, type UpstreamTarget } from "./target.js"
import type { CancelSignal } from "./upstream.js"
import { UsageTap } from "./usage-tap.js"

/** The end-to-end headers of an upstream answer, to send to the client. */
function answerHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {}
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined && !HOP_BY_HOP.has(name) && name !== "set-cookie") out[name] = value
  return out
}

/**
 * Copies an answer to the client chunk by chunk, the client's bytes first and `copy` (the side decoder) after,
 * pausing while the client's socket is full, the client's bytes through `redactor` (a key of the gateway's own
 * never reaches a client). When the answer ends, the client's answer is ended in the same turn, so its last
 * bytes leave with the ones before them (one write, not two); resolves then, or with the error that cut it.
 * Events rather than an async iterator: this runs for every chunk of every forwarded answer.
 */
function relay(
  from: IncomingMessage,
  to: HttpReply,
  copy: (chunk: Buffer) => void,
  redactor: StreamRedactor,
  held?: HeldStart,
): Promise<Error | undefined> {
  return new Promise((resolve) => {
    if (held) {
      for (const chunk of held.chunks) {
        const out = redactor.push(chunk)
        if (out.length > 0) to.write(out)
        // Chunks the hold decoded are the side decoder's already (it goes on with the hold's decoder).
        if (!held.decoded) copy(chunk)
      }
      // What the answer did since it was held (its end, or its loss, may have come while nothing listened).
      if (held.lost) return resolve(held.lost)
      if (held.ended) {
        to.end(redactor.end())
        return resolve(undefined)
      }
    }
    const resume = () => from.resume()
    from.on("data", (chunk: Buffer) => {
      const out = redactor.push(chunk)
      if (out.length > 0 && !to.write(out)) {
        from.pause()
        to.res.once("drain", resume)
      }
      copy(chunk)
    })
    from.once("end", () => {
      to.end(redactor.end())
      resolve(undefined)
    })
    from.once("error", (error) => resolve(error))
    from.once("close", () => {
      if (!from.complete) resolve(new Error("the connection closed before the answer ended"))
    })
    // A held answer was paused: its listeners alone would not set it flowing again.
    if (held) from.resume()
  })
}

/** The events that show an answer's content began (or that it ended): from then on the answer is the client's. */
const CONTENT: ReadonlySet<StreamEvent["type"]> = new Set([
  "text",
  "thinking",
  "redacted_thinking",
  "tool_call_start",
  "tool_call_delta",
  "tool_call_end",
  "compaction",
  "tool_search",
  "stop",
])

/** How many bytes of a streamed answer's start are held at most; then it goes to the client as it is. */
const HOLD_LIMIT = 64 * 1024

/**
 * The start of a streamed answer, held while it showed no content: its bytes, the decoder that read them with the
 * events they gave (absent when it could not read them: they are read again), and, until the answer's reader
 * listens, whether the answer has ended since or was lost (the hold's listeners keep noting both).
 */
export interface HeldStart {
  chunks: Buffer[]
  decoded?: { decoder: StreamDecoder; events: StreamEvent[] }
  ended: boolean
  lost?: Error
}

/** How a route that may still try another upstream holds a stream's start: how long, and which failures move on. */
export interface HoldPolicy {
  ms: number
  movesOn: (failure: AttemptFailure) => boolean
}

/**
 * Holds a streamed answer's first bytes, for a route that may still try another upstream, until they show
 * content, the answer ends, 64 KB were held or `policy.ms` passed. An error event before any content that the
 * policy moves on from (an upstream that answered 200, then said it is overloaded), or a connection lost before any
 * content, fails the attempt while no byte has reached the client; anything else goes on from its first byte.
 */
export function holdStart(
  started: StartedAnswer,
  format: WireFormat,
  sent: unknown,
  policy: HoldPolicy,
): Promise<{ ok: true; held: HeldStart } | { ok: false; failure: AttemptFailure }> {
  const body = started.answer.body
  if (!/event-stream/i.test(started.type)) return Promise.resolve({ ok: true, held: { chunks: [], ended: false } })
  return new Promise((resolve) => {
    const events: StreamEvent[] = []
    const held: HeldStart = { chunks: [], ended: false }
    let size = 0
    let settled = false
    const settle = (result: { ok: true; held: HeldStart } | { ok: false; failure: AttemptFailure }) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      body.off("data", onData)
      if (result.ok) body.pause()
      else body.destroy()
      resolve(result)
    }
    const relayed = () => settle({ ok: true, held })
    // A start that shows nothing for that long (pings only) goes on to the client as it is.
    const timer = setTimeout(relayed, policy.ms)
    const lost = (message: string) => {
      const error = new ProviderError("network", `the upstream's answer ended before its content: ${message}`, {
        retryable: true,
      })
      // Once relayed, a loss is the relay's to report; before, the attempt failed.
      if (settled) held.lost ??= error
      else settle({ ok: false, failure: { error } })
    }
    const onData = (chunk: Buffer) => {
      held.chunks.push(chunk)
      size += chunk.length
      const from = events.length
      try {
        held.decoded ??= { decoder: new StreamDecoder(format, formatModule(format).decodeOptions(sent)), events }
        held.decoded.decoder.feed(chunk, events)
      } catch {
        // What cannot be read is the client's to see, as it came (and read again from its first byte).
        delete held.decoded
        return relayed()
      }
      for (const event of events.slice(from)) {
        if (event.type === "error" && event.kind !== undefined) {
          // A stream-level kind (truncated, malformed) is no provider's failure: no policy moves on from it.
          const options = event.retryAfterMs !== undefined ? { retryAfterMs: event.retryAfterMs } : {}
          const failure = { error: new ProviderError(event.kind as ProviderErrorKind, event.message, options) }
          return policy.movesOn(failure) ? settle({ ok: false, failure }) : relayed()
        }
        if (event.type === "error" || CONTENT.has(event.type)) return relayed()
      }
      if (size >= HOLD_LIMIT) relayed()
    }
    const onEnd = () => {
      held.ended = true
      settle({ ok: true, held })
    }
    const onError = (error: Error) => lost(error.message)
    const onClose = () => {
      if (!body.complete) lost("the connection closed")
    }
    body.on("data", onData)
    body.once("end", onEnd)
    body.once("error", onError)
    body.once("close", onClose)
  })
}

/**
 * One same-format attempt against one target: the client's bytes, with the target's model name when it differs.
 * `headersTimeoutMs` bounds the wait for the answer's headers when another upstream could be tried.
 */
export function attemptPassThrough(
  request: DecidedRequest,
  target: UpstreamTarget,
  settings: GatewaySettings,
  signal: CancelSignal,
  headersTimeoutMs?: number,
): Promise<Attempt<StartedAnswer>> {
  const { body, raw } = request
  const renamed = typeof body.model === "string" && body.model !== target.model
  const shown = renamed ? { ...body, model: target.model } : body
  const bytes = renamed ? Buffer.from(JSON.stringify(shown)) : raw
  const headers = forwardHeaders(request.headers, target.endpoint)
  return callTarget(target, { headers, body: { bytes, shown } }, settings, signal, "JSON", headersTimeoutMs)
}

/**
 * Answers a failed attempt: the provider's own error, in the client's own format, forwarded as it came less any
 * secret it quotes (`headers` replaces its headers when given); any other failure as an error in the client's shape.
 */
export function answerFailure(
  reply: HttpReply,
  failure: AttemptFailure,
  secrets: readonly (string | undefined)[],
  headers?: Record<string, string>,
): void {
  const { own, error } = failure
  if (!own) {
    reply.failWith(error, secrets)
    return
  }
  reply.tell(errorInputOf(error).input)
  reply.head(own.status, headers ?? redactDeep(answerHeaders(own.headers), secrets))
  reply.end(redactText(own.text, secrets))
}

/** Forwards one request unchanged and the answer back unchanged; the outcome's facts come from a copy. */
export async function passThrough(
  request: DecidedRequest,
  reply: HttpReply,
  serving: ServingConfig,
  shared: GatewayShared,
): Promise<PipelineResult> {
  const { target } = request
  const attempt = await attemptPassThrough(request, target, serving.settings, reply.gone)
  if (!attempt.ok) {
    answerFailure(reply, attempt.failure, request.secrets)
    return { facts: {}, dropped: [], ...(attempt.sent ? { sent: attempt.sent } : {}) }
  }
  return relayAnswer(request, attempt, reply, shared)
}

/**
 * Relays an answer that began to the client, byte for byte (the request's `target` is the one that answered).
 * Once its first byte left, nothing is retried: a cut answer reaches the client cut.
 */
export async function relayAnswer(
  request: DecidedRequest,
  attempt: { started: StartedAnswer; sent: RecordedBody; held?: HeldStart },
  reply: HttpReply,
  shared: GatewayShared,
): Promise<PipelineResult> {
  const { target } = request
  const { sent } = attempt
  const { answer, type } = attempt.started
  // A generation's answer is read on the side for its usage and stop; a token count's answer holds neither.
  const tap =
    request.kind === "generation"
      ? new UsageTap(target.upstream.format, type, sent.body, attempt.held?.decoded)
      : undefined
  const extra = shared.answerHeaders
    ? await shared.answerHeaders(earlyRecord(request, { dropped: [], sent }))
    : undefined
  // No early flush: the headers leave with the first chunk, one write instead of two.
  reply.head(answer.status, extra ? { ...answerHeaders(answer.headers), ...extra } : answerHeaders(answer.headers))
  // The key from the gateway's environment is kept out of the answer too; the client's own key is the client's.
  const redactor = new StreamRedactor(target.ownKey !== undefined ? [target.ownKey] : [])
  const failed = await relay(answer.body, reply, (chunk) => tap?.feed(chunk), redactor, attempt.held)
  const cut =
    failed === undefined
      ? undefined
      : (answer.cutBy()?.message ?? `the upstream connection failed mid-answer: ${failed.message}`)
  // Bytes were sent: no status can change and nothing is retried; the client sees the stream cut, as the upstream cut it.
  if (cut !== undefined) reply.cut()
  // The copy is read to its end when the record is built, after the client's answer ended: the record waits for
  // it, the client does not.
  if (!tap) return { facts: cut === undefined ? {} : { error: { kind: "network", message: cut } }, dropped: [], sent }
  return { facts: () => tap.end(cut), dropped: [], sent }
}
