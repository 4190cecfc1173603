/**
 * The HTTP pipeline of a route with several upstreams: one attempt after another (attempt.ts), each in its own
 * mode (a fallback that speaks another wire format is translated for), until one answer begins. The next upstream
 * is tried only while no byte has reached the client, and only for a failure another upstream may not share: no
 * connection, no headers in time, 429, 5xx (529 included), or a context overflow (then only an upstream whose
 * model window is larger). A short `retry-after` is waited out and the same upstream asked once more; a longer one
 * rests it. Upstreams whose circuit is open are passed over (breaker.ts). The chain is named in the
 * `x-promptline-attempts` header and in the record. The request's body was read whole before the first attempt,
 * so every attempt sends the same bytes. The stream of an upstream that is not the route's last is held until it
 * shows content (forwarded or translated): an error it reports before that (an overload inside a 200 stream) moves
 * on too. A token count falls back the same way: forwarded as it came, or counted for each upstream in that
 * upstream's own format (count.ts).
 */
import { resolveModel } from "../models/resolve.js"
import { ProviderError } from "../providers/errors.js"
import { formatModule } from "../providers/formats.js"
import type { AttemptFailure, StartedAnswer } from "./attempt.js"
import type { Admission } from "./breaker.js"
import { conversationKey } from "./conversation-key.js"
import { answerCount, countFor, countingAnswer } from "./count.js"
import { GatewayError } from "./errors.js"
import type { PipelineResult, RecordAttempt, RecordedBody } from "./outcome.js"
import {
  answerFailure,
  attemptPassThrough,
  type HeldStart,
  type HoldPolicy,
  holdStart,
  relayAnswer,
} from "./pass-through.js"
import type { HttpReply } from "./reply.js"
import type { DecidedRequest, TranslatedRequest } from "./request.js"
import type { RouteStep } from "./routing.js"
import type { GatewayShared, ServingConfig } from "./serving.js"
import type { UpstreamTarget } from "./target.js"
import { writeTranslation } from "./translate.js"
import { attemptTranslation, type Translation } from "./translation.js"
import type { CancelSignal } from "./upstream.js"

/** The response header naming each upstream a request went to or passed over, in order, with how it ended. */
export const ATTEMPTS_HEADER = "x-promptline-attempts"

/** Why a failure sends the request on to the next upstream; undefined when it is the client's to hear. */
export type FallbackCause = "network" | "rate-limit" | "server" | "context-overflow"

/**
 * Whether a failed attempt falls back, and why: a failed or timed-out connection, 429, an error status of 500 or
 * more (529 "overloaded" included), and a context overflow. Any other error (a bad request, a refused key) would
 * fail the same way elsewhere, so the client is told.
 */
export function fallbackCause(failure: AttemptFailure): FallbackCause | undefined {
  const { error } = failure
  const status = failure.own?.status ?? statusOf(error)
  const kind = kindOf(error)
  if (kind === "context-overflow") return "context-overflow"
  if (status === 429 || kind === "rate-limit") return "rate-limit"
  // A server error reported inside a stream that answered 200 carries no status of its own.
  if ((status !== undefined && status >= 500) || (status === undefined && kind === "server")) return "server"
  if (status === undefined && kind === "network") return "network"
  return undefined
}

/** Whether a failure sends the request on to the next upstream. */
const MOVES_ON = (failure: AttemptFailure) => fallbackCause(failure) !== undefined

/** The kind of a failure, in promptline's terms. */
function kindOf(error: ProviderError | GatewayError): string {
  return error instanceof GatewayError ? error.input.kind : error.kind
}

/** How long a failure asked to be waited, if it did (`retry-after`). */
function retryAfterOf(error: ProviderError | GatewayError): number | undefined {
  return error instanceof GatewayError ? error.input.retryAfterMs : error.retryAfterMs
}

/** The HTTP status a failure carries, if any. */
function statusOf(error: ProviderError | GatewayError): number | undefined {
  return error instanceof GatewayError ? error.status : error.status
}

/** One step's attempt in its mode: the answer that began (a translated count: its tokens), or the failure. */
type StepAttempt =
  | { ok: true; mode: "same-format"; started: StartedAnswer; sent: RecordedBody; held?: HeldStart }
  | { ok: true; mode: "translate"; started: Translation; sent: RecordedBody; dropped: readonly string[] }
  | { ok: true; mode: "count"; tokens: number }
  | { ok: false; failure: AttemptFailure; sent?: RecordedBody; dropped: readonly string[] }

/** The attempts header: `name/model outcome` per upstream, in order. */
export function attemptsHeader(attempts: readonly RecordAttempt[]): string {
  return attempts.map((a) => `${a.upstream}/${a.model} ${a.error ?? a.status ?? "-"}`).join(", ")
}

/** Runs a request along its route's upstreams until one answer begins, then writes that answer. */
export async function fallBack(
  request: DecidedRequest,
  reply: HttpReply,
  serving: ServingConfig,
  shared: GatewayShared,
): Promise<PipelineResult> {
  const { settings } = serving
  const policy = settings.fallback
  const signal = reply.gone
  const links: { step: RouteStep; target: UpstreamTarget }[] = [
    { step: request.route, target: request.target },
    ...(request.fallbacks ?? []),
  ]
  const attempts: RecordAttempt[] = []
  const windowOf = (step: RouteStep) =>
    resolveModel(step.model, { provider: step.upstream.provider, models: serving.models }).model.contextWindow
  let translated: TranslatedRequest | undefined = request.decoded ? (request as TranslatedRequest) : undefined
  let last:
    | { failure: AttemptFailure; mode: RouteStep["mode"]; sent?: RecordedBody; dropped: readonly string[] }
    | undefined
  /** A context overflow asks for a model window above this one. */
  let windowAbove: number | undefined
  let restingUntil: number | undefined

  /** One step's attempt; `hold`: an upstream is left to try, so a stream's start is held until its content. */
  const attempt = async (
    step: RouteStep,
    target: UpstreamTarget,
    hold: HoldPolicy | undefined,
    headersTimeoutMs?: number,
  ): Promise<StepAttempt> => {
    if (step.mode === "same-format") {
      const made = await attemptPassThrough(request, target, settings, signal, headersTimeoutMs)
      if (!made.ok) return { ...made, dropped: [] }
      if (!hold) return { ...made, mode: "same-format" }
      const start = await holdStart(made.started, target.upstream.format, made.sent.body, hold)
      return start.ok
        ? { ...made, mode: "same-format", held: start.held }
        : { ok: false, failure: start.failure, sent: made.sent, dropped: [] }
    }
    translated ??= decodeFor(request)
    const stepRequest = { ...translated, route: { ...translated.route, ...step } }
    if (request.kind === "counting") {
      try {
        const tokens = await countFor(stepRequest, target, serving, shared, signal.signal, headersTimeoutMs)
        return { ok: true, mode: "count", tokens }
      } catch (error) {
        if (error instanceof ProviderError) return { ok: false, failure: { error }, dropped: [] }
        throw error
      }
    }
    const client = { body: request.body, path: request.api.route }
    const made = await attemptTranslation(stepRequest, target, client, serving, shared, signal, headersTimeoutMs, hold)
    return made.ok ? { ...made, mode: "translate" } : made
  }

  for (const [index, { step, target }] of links.entries()) {
    const name = step.upstream.name
    if (windowAbove !== undefined && !(windowOf(step) > windowAbove)) {
      attempts.push({ upstream: name, model: step.model, error: "window-too-small" })
      continue
    }
    const admitted: Admission = await shared.breaker.admit(name)
    if (admitted.state === "open") {
      attempts.push({ upstream: name, model: step.model, error: "circuit-open" })
      restingUntil = Math.min(restingUntil ?? admitted.until, admitted.until)
      continue
    }
    // The last upstream waits as long as any call does; the others give way after the fallback's headers timeout,
    // and a stream of theirs is held until it shows content, for as long (a failure before it moves on as any does).
    const another = index < links.length - 1
    const headersTimeoutMs = another ? policy.headersTimeoutMs : undefined
    const hold = another ? { ms: policy.headersTimeoutMs, movesOn: MOVES_ON } : undefined
    // A throw (a body no encoder can take) ends the request; a half-open probe it held is let go first.
    const guarded = (timeout?: number) =>
      attempt(step, target, hold, timeout).catch((error: unknown) => {
        shared.breaker.released(name, admitted)
        throw error
      })
    let made = await guarded(headersTimeoutMs)
    let wait = made.ok ? undefined : retryAfterOf(made.failure.error)
    if (!made.ok && wait !== undefined && wait <= policy.retryAfterMaxMs && fallbackCause(made.failure) !== undefined) {
      attempts.push({ upstream: name, model: step.model, ...failureFields(made.failure) })
      await pause(wait, signal)
      if (signal.aborted) {
        shared.breaker.released(name, admitted)
        return { facts: {}, dropped: made.dropped, chain: { attempts } }
      }
      made = await guarded(headersTimeoutMs)
      wait = undefined
    }
    if (made.ok) {
      await shared.breaker.succeeded(name, admitted)
      attempts.push({
        upstream: name,
        model: step.model,
        status: made.mode === "same-format" ? made.started.answer.status : 200,
      })
      reply.res.setHeader(ATTEMPTS_HEADER, attemptsHeader(attempts))
      const answering = { ...request, route: { ...request.route, ...step }, target }
      const learned =
        made.mode === "same-format"
          ? await relayAnswer(answering, made, reply, shared)
          : made.mode === "count"
            ? answerCount(reply, countingAnswer(request), made.tokens)
            : await writeTranslation(
                { ...(translated as TranslatedRequest), route: answering.route, target },
                made,
                reply,
                shared,
              )
      return { ...learned, chain: { attempts, ...(index > 0 ? { answered: step } : {}) } }
    }
    const cause = fallbackCause(made.failure)
    attempts.push({ upstream: name, model: step.model, ...failureFields(made.failure) })
    last = { failure: made.failure, mode: step.mode, dropped: made.dropped, ...(made.sent ? { sent: made.sent } : {}) }
    if (cause === "network" || cause === "server" || cause === "rate-limit") {
      if (wait !== undefined && wait > policy.retryAfterMaxMs) await shared.breaker.rest(name, shared.clock() + wait)
      else await shared.breaker.failed(name, admitted)
    } else shared.breaker.released(name, admitted)
    if (cause === undefined || signal.aborted) break
    if (cause === "context-overflow") windowAbove = Math.max(windowAbove ?? 0, windowOf(step))
  }

  reply.res.setHeader(ATTEMPTS_HEADER, attemptsHeader(attempts))
  const chain = { attempts }
  if (!last) {
    // Every upstream was passed over: resting, or too small for an overflow no upstream was asked with.
    const error = new GatewayError(
      {
        kind: "server",
        message: `no upstream of this route could be asked: ${attemptsHeader(attempts)}`,
        ...(restingUntil !== undefined ? { retryAfterMs: Math.max(0, restingUntil - shared.clock()) } : {}),
      },
      503,
    )
    reply.failWith(error, request.secrets)
    return { facts: {}, dropped: [], chain }
  }
  // The last failure is the client's: the provider's own error as it came (same-format), else in the client's shape.
  if (last.mode === "same-format") answerFailure(reply, last.failure, request.secrets)
  else reply.failWith(last.failure.error, request.secrets)
  return { facts: {}, dropped: last.dropped, ...(last.sent ? { sent: last.sent } : {}), chain }
}

/** What the record keeps of a failed attempt: the status it answered with, and the kind of its failure. */
function failureFields(failure: AttemptFailure): Pick<RecordAttempt, "status" | "error"> {
  const status = failure.own?.status ?? statusOf(failure.error)
  return { ...(status !== undefined ? { status } : {}), error: kindOf(failure.error) }
}

/** A same-format request decoded for an upstream of another wire shape (its conversation key derived then). */
function decodeFor(request: DecidedRequest): TranslatedRequest {
  const decoded = formatModule(request.api.format).decodeRequest(request.body, request.api.route)
  const key = request.conversationKey ?? conversationKey(request.headers, decoded)
  return { ...request, decoded, ...(key !== undefined ? { conversationKey: key } : {}) }
}

/** Waits `ms`, or less when the client goes away. */
function pause(ms: number, signal: CancelSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms)
    function done() {
      clearTimeout(timer)
      signal.removeEventListener("abort", done)
      resolve()
    }
    signal.addEventListener("abort", done, { once: true })
  })
}
