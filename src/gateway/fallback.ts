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
import type { DecidedRequest, RouteLink, TranslatedRequest } from "./request.js"
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

/** An answer that began on one link, in its mode (a translated count: its tokens). */
type Began =
  | { mode: "same-format"; started: StartedAnswer; sent: RecordedBody; held?: HeldStart }
  | { mode: "translate"; started: Translation; sent: RecordedBody; dropped: readonly string[] }
  | { mode: "count"; tokens: number }

/** The status the record shows of an answer that began: a forwarded one's own, 200 for the others. */
const answerStatus = (made: Began) => (made.mode === "same-format" ? made.started.answer.status : 200)

/** The attempts header: `name/model outcome` per upstream, in order. */
export function attemptsHeader(attempts: readonly RecordAttempt[]): string {
  return attempts.map((a) => `${a.upstream}/${a.model} ${a.error ?? a.status ?? "-"}`).join(", ")
}

/** The links of a decided request's route: the first upstream's, then each fallback's. */
export function linksOf(request: {
  route: RouteStep
  target: UpstreamTarget
  fallbacks?: readonly RouteLink[]
}): RouteLink[] {
  return [{ step: request.route, target: request.target }, ...(request.fallbacks ?? [])]
}

/** How one attempt along a route ended: the answer that began (`made`), or the failure. */
export type Tried<Made> =
  | { ok: true; made: Made }
  | { ok: false; failure: AttemptFailure; sent?: RecordedBody; dropped: readonly string[] }

/** The last failure of a chain, with the mode of the attempt that failed. */
export interface LastFailure {
  failure: AttemptFailure
  mode: RouteStep["mode"]
  sent?: RecordedBody
  dropped: readonly string[]
}

/** How a request went along its route: an answer that began on `link`, or none, with every attempt in order. */
export type AlongRoute<Made> =
  | { ok: true; made: Made; link: RouteLink; index: number; attempts: RecordAttempt[] }
  | {
      ok: false
      /** The last failure (absent: every upstream was passed over). */
      last?: LastFailure
      attempts: RecordAttempt[]
      /** The client went away while a `retry-after` was waited out. */
      gone?: { dropped: readonly string[] }
      /** The earliest end of a rest among the upstreams passed over. */
      restingUntil?: number
    }

/**
 * Tries a request along its route's links, in order, until one answer begins (the fallback policy of the module
 * header: which failures move on, `retry-after`, the breaker, a larger window after an overflow). `attempt` makes
 * one link's attempt: `hold`, when given, holds a stream's start (another upstream is left), and
 * `headersTimeoutMs` bounds the wait for its headers. `status` is what the record shows of an answer that began.
 */
export async function attemptAlong<Made>(
  links: readonly RouteLink[],
  attempt: (
    link: RouteLink,
    hold: HoldPolicy | undefined,
    headersTimeoutMs: number | undefined,
  ) => Promise<Tried<Made>>,
  status: (made: Made) => number,
  context: { serving: ServingConfig; shared: GatewayShared; signal: CancelSignal },
): Promise<AlongRoute<Made>> {
  const { serving, shared, signal } = context
  const policy = serving.settings.fallback
  const attempts: RecordAttempt[] = []
  const windowOf = (step: RouteStep) =>
    resolveModel(step.model, { provider: step.upstream.provider, models: serving.models }).model.contextWindow
  let last: LastFailure | undefined
  /** A context overflow asks for a model window above this one. */
  let windowAbove: number | undefined
  let restingUntil: number | undefined

  for (const [index, link] of links.entries()) {
    const { step } = link
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
    const guarded = () =>
      attempt(link, hold, headersTimeoutMs).catch((error: unknown) => {
        shared.breaker.released(name, admitted)
        throw error
      })
    let made = await guarded()
    let wait = made.ok ? undefined : retryAfterOf(made.failure.error)
    if (!made.ok && wait !== undefined && wait <= policy.retryAfterMaxMs && fallbackCause(made.failure) !== undefined) {
      attempts.push({ upstream: name, model: step.model, ...failureFields(made.failure) })
      await pause(wait, signal)
      if (signal.aborted) {
        shared.breaker.released(name, admitted)
        return { ok: false, attempts, gone: { dropped: made.dropped } }
      }
      made = await guarded()
      wait = undefined
    }
    if (made.ok) {
      await shared.breaker.succeeded(name, admitted)
      attempts.push({ upstream: name, model: step.model, status: status(made.made) })
      return { ok: true, made: made.made, link, index, attempts }
    }
    const cause = fallbackCause(made.failure)
    attempts.push({ upstream: name, model: step.model, ...failureFields(made.failure) })
    const { failure, dropped, sent } = made
    last = { failure, mode: step.mode, dropped, ...(sent ? { sent } : {}) }
    if (cause === "network" || cause === "server" || cause === "rate-limit") {
      if (wait !== undefined && wait > policy.retryAfterMaxMs) await shared.breaker.rest(name, shared.clock() + wait)
      else await shared.breaker.failed(name, admitted)
    } else shared.breaker.released(name, admitted)
    if (cause === undefined || signal.aborted) break
    if (cause === "context-overflow") windowAbove = Math.max(windowAbove ?? 0, windowOf(step))
  }
  return {
    ok: false,
    attempts,
    ...(last ? { last } : {}),
    ...(restingUntil !== undefined ? { restingUntil } : {}),
  }
}

/** The error of a chain whose every upstream was passed over (resting, or too small for an overflow): a 503. */
function passedOver(attempts: readonly RecordAttempt[], restingUntil: number | undefined, now: number) {
  return new GatewayError(
    {
      kind: "server",
      message: `no upstream of this route could be asked: ${attemptsHeader(attempts)}`,
      ...(restingUntil !== undefined ? { retryAfterMs: Math.max(0, restingUntil - now) } : {}),
    },
    503,
  )
}

/** The chain the record shows of a request that went along its route, and the upstream that answered when not the first. */
export function chainOf(along: AlongRoute<unknown>): NonNullable<PipelineResult["chain"]> {
  const { attempts } = along
  return along.ok && along.index > 0 ? { attempts, answered: along.link.step } : { attempts }
}

/**
 * What a route that gave no answer leaves: what was learned for the record, and the error the client is told, the
 * last upstream's failure (`last`, with its mode) or a 503 when every upstream was passed over; no error when the
 * client went away while a `retry-after` was waited out.
 */
export function chainFailed(
  along: AlongRoute<unknown> & { ok: false },
  now: number,
): { learned: PipelineResult; error?: unknown; last?: LastFailure } {
  const chain = chainOf(along)
  if (along.gone) return { learned: { facts: {}, dropped: along.gone.dropped, chain } }
  const { last } = along
  if (!last)
    return { learned: { facts: {}, dropped: [], chain }, error: passedOver(along.attempts, along.restingUntil, now) }
  const learned = { facts: {}, dropped: last.dropped, ...(last.sent ? { sent: last.sent } : {}), chain }
  return { learned, error: last.failure.error, last }
}

/** Runs a request along its route's upstreams until one answer begins, then writes that answer. */
export async function fallBack(
  request: DecidedRequest,
  reply: HttpReply,
  serving: ServingConfig,
  shared: GatewayShared,
): Promise<PipelineResult> {
  const { settings } = serving
  const signal = reply.gone
  let translated: TranslatedRequest | undefined = request.decoded ? (request as TranslatedRequest) : undefined

  /** One link's attempt in its mode. */
  const attempt = async (
    { step, target }: RouteLink,
    hold: HoldPolicy | undefined,
    headersTimeoutMs: number | undefined,
  ): Promise<Tried<Began>> => {
    if (step.mode === "same-format") {
      const made = await attemptPassThrough(request, target, settings, signal, headersTimeoutMs)
      if (!made.ok) return { ...made, dropped: [] }
      if (!hold) return { ok: true, made: { ...made, mode: "same-format" } }
      const start = await holdStart(made.started, target.upstream.format, made.sent.body, hold)
      return start.ok
        ? { ok: true, made: { ...made, mode: "same-format", held: start.held } }
        : { ok: false, failure: start.failure, sent: made.sent, dropped: [] }
    }
    translated ??= decodeFor(request)
    const stepRequest = { ...translated, route: { ...translated.route, ...step } }
    if (request.kind === "counting") {
      try {
        const tokens = await countFor(stepRequest, target, serving, shared, signal.signal, headersTimeoutMs)
        return { ok: true, made: { mode: "count", tokens } }
      } catch (error) {
        if (error instanceof ProviderError) return { ok: false, failure: { error }, dropped: [] }
        throw error
      }
    }
    const client = { body: request.body, path: request.api.route }
    const made = await attemptTranslation(stepRequest, target, client, serving, shared, signal, headersTimeoutMs, hold)
    return made.ok ? { ok: true, made: { ...made, mode: "translate" } } : made
  }

  const along = await attemptAlong(linksOf(request), attempt, answerStatus, { serving, shared, signal })
  reply.res.setHeader(ATTEMPTS_HEADER, attemptsHeader(along.attempts))
  if (along.ok) {
    const { made, link } = along
    const { step, target } = link
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
    return { ...learned, chain: chainOf(along) }
  }
  const failed = chainFailed(along, shared.clock())
  // The last failure is the client's: the provider's own error as it came (same-format), else in the client's shape.
  if (failed.last?.mode === "same-format") answerFailure(reply, failed.last.failure, request.secrets)
  else if (failed.error !== undefined) reply.failWith(failed.error, request.secrets)
  return failed.learned
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
