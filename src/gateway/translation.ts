/**
 * Translating one request against one upstream target, for both transports: the client's request (already read
 * by its format's `decodeRequest`) fitted and cache-planned when the route asks, encoded for the target's format
 * (portability included: ids, signatures, thinking from other models, orphaned calls), sent, and the answer's
 * stream decoded, guarded and sealed for the client's encoder. Fields the client sent that promptline does not
 * model, and those the target's body cannot carry, are named as dropped. Deferred tools the target cannot defer are
 * planned first (deferred-tools/), with the gateway's search rounds when the client asked for a server-side search.
 */
import { ContextManager } from "../history/context-manager.js"
import type { Message } from "../history/message.js"
import { promptCount } from "../history/request-count.js"
import { resolveModel } from "../models/resolve.js"
import type { ModelInfo } from "../models/types.js"
import { uncarriedPaths } from "../providers/carried.js"
import { StreamDecoder } from "../providers/decode.js"
import { formatModule } from "../providers/formats.js"
import type { StreamEvent } from "../providers/stream.js"
import type { DecodedRequest, EncodeOptions, RequestRoute, StreamEncodeOptions } from "../providers/types.js"
import { lastGeneration, RestartGuard } from "./answer-guard.js"
import { type Attempt, callTarget } from "./attempt.js"
import { openDeferred, resolveDeferredTools } from "./deferred-tools/index.js"
import { type AnswerFacts, withEvents } from "./outcome.js"
import { type HeldStart, type HoldPolicy, holdStart } from "./pass-through.js"
import { promptTokens } from "./prompt-tokens.js"
import type { RequestContext } from "./request.js"
import type { RoutePlan } from "./routing.js"
import { redactEvents } from "./secrets.js"
import type { GatewayShared, ServingConfig } from "./serving.js"
import { SignatureSealer, unsealMessages } from "./signatures.js"
import type { UpstreamTarget } from "./target.js"
import type { CancelSignal } from "./upstream.js"

/** A request to translate: decoded, routed, its conversation known. */
export interface TranslatingRequest
  extends Pick<RequestContext, "clientFormat" | "startedAt" | "secrets" | "conversationKey"> {
  readonly decoded: DecodedRequest
  readonly route: RoutePlan
}

/** The client's side of the answer: the body whose settings it echoes, and what its path said (`alt=sse`). */
export interface ClientAsk {
  body: Record<string, unknown>
  path: RequestRoute
}

/** An upstream answer being translated: how to write it for the client, and its events as they are decoded. */
export interface Translation {
  /** The options of the client format's stream encoder (the model name the client sees, `created`, ...). */
  encodeOptions: StreamEncodeOptions
  /**
   * Reads the upstream's answer to its end, handing each decoded batch of events to `each` (`streamed`, the
   * default: as they come, a restart after content ending the answer with an error; `whole`: once, at the end,
   * the generation the upstream finished). A cut or a failed connection becomes an error event, never a throw.
   * Resolves with what the answer reported: the usage the upstream reported, and the stop and failure of the
   * answer the client was given.
   */
  read(each: (batch: StreamEvent[]) => void, mode?: "streamed" | "whole"): Promise<AnswerFacts>
}

/** One translation attempt, with the fields it dropped for its target. */
export type TranslationAttempt = Attempt<Translation> & { dropped: readonly string[] }

/** The messages as the target will get them: fitted when the route asks, with promptline's cache plan when asked. */
async function prepare(
  request: TranslatingRequest,
  decoded: DecodedRequest,
  model: ModelInfo,
  target: UpstreamTarget,
  serving: ServingConfig,
  shared: GatewayShared,
): Promise<{ messages: Message[]; options: EncodeOptions }> {
  const { route, conversationKey: conversation } = request
  let messages = decoded.messages
  if (route.fit) {
    const stored = conversation === undefined ? undefined : await shared.changeLogs.open(conversation)
    const manager = new ContextManager(await shared.counter(), {
      models: serving.models,
      ...(stored ? { changeLog: stored.log } : {}),
    })
    // `now` stamps the fit's edits; a fixed 0 keeps the output a function of the requests alone.
    const fitted = manager.fit(messages, {
      model,
      now: 0,
      ...promptCount(decoded.prompt),
      wireFormat: target.upstream.format,
    })
    messages = fitted.messages
    // Saved before the request goes out, so the conversation's next request, on any instance, finds these cuts.
    if (stored && fitted.edits.length > 0) await shared.changeLogs.save(conversation!, stored)
  }
  const options: EncodeOptions = { ...decoded.options, stream: true }
  if (route.cache === "optimize") {
    const cache = decoded.options.cache === false ? {} : { ...decoded.options.cache }
    if (cache.sessionId === undefined && conversation !== undefined) cache.sessionId = conversation
    options.cache = cache
  }
  return { messages, options }
}

/**
 * Encodes the request for one target and sends it. Fails (as a value) when the target refused it before any byte
 * of an answer (or sent no headers within `headersTimeoutMs`, when given); otherwise the answer is ready to be read.
 * Throws only for what no target could take (an option in the client's body that cannot be sent on). The client's
 * deferred tools are resolved for the target first (the route's `deferredTools`; docs/gateway.md, Deferred tools):
 * offered as planned, the tools no model will be offered named as dropped, and when the gateway searches for the
 * upstream, its rounds, each an attempt on this same target, read as one answer.
 */
export async function attemptTranslation(
  request: TranslatingRequest,
  target: UpstreamTarget,
  client: ClientAsk,
  serving: ServingConfig,
  shared: GatewayShared,
  signal: CancelSignal,
  headersTimeoutMs?: number,
  hold?: HoldPolicy,
): Promise<TranslationAttempt> {
  const plan = resolveDeferredTools(request.decoded, target.upstream.format, request.route.deferredTools)
  const attempt = await openDeferred(request.decoded, {
    plan,
    open: (decoded) =>
      attemptRound({ ...request, decoded }, target, client, serving, shared, signal, headersTimeoutMs, hold),
    joined: (batch) => redactEvents(batch, request.secrets),
  })
  return plan && plan.dropped.length > 0 ? { ...attempt, dropped: [...plan.dropped, ...attempt.dropped] } : attempt
}

/** One upstream call of a translation: the request as given, encoded for the target, sent, its answer begun. */
async function attemptRound(
  request: TranslatingRequest,
  target: UpstreamTarget,
  client: ClientAsk,
  serving: ServingConfig,
  shared: GatewayShared,
  signal: CancelSignal,
  headersTimeoutMs: number | undefined,
  hold: HoldPolicy | undefined,
): Promise<TranslationAttempt> {
  // Signatures the gateway sealed on earlier answers name their model again, for portability to go by.
  const decoded = { ...request.decoded, messages: unsealMessages(request.decoded.messages) }
  const upstreamModule = formatModule(target.upstream.format)
  const model = resolveModel(target.model, { provider: target.upstream.provider, models: serving.models }).model
  const { messages, options } = await prepare(request, decoded, model, target, serving, shared)
  const encoded = upstreamModule.encode({ prompt: decoded.prompt, messages, model, options })
  const body = encoded.body as Record<string, unknown>
  if (typeof body.model === "string") body.model = target.model
  // Named: what the client's format holds and promptline does not model, and what the upstream's body cannot carry.
  const uncarried = encoded.uncarried ?? []
  const dropped = [...decoded.unmodeled, ...uncarriedPaths(uncarried, decoded.sources)]
  // A model that reads no images gets a note in their place (portability); the client is told, as for a field.
  if (encoded.diagnostics.some((d) => d.code === "image-omitted"))
    dropped.push(`image (${target.model} reads no images; replaced by a note)`)
  // The encoder's own headers (Anthropic betas for context management) go with the body it made.
  const headers: Record<string, string> = {
    ...target.endpoint.headers,
    ...encoded.headers,
    accept: "text/event-stream",
  }
  // A client format that reports the input before the answer gets promptline's count when the upstream's usage
  // comes only at the end; counted while the upstream is asked.
  const counted =
    formatModule(request.clientFormat).inputUsageAtStart && !upstreamModule.inputUsageAtStart
      ? shared
          .counter()
          .then((counter) => promptTokens(counter, decoded.prompt, messages, model, target.upstream.format))
          .catch(() => undefined)
      : undefined
  const payload = { bytes: JSON.stringify(body), shown: body }
  const attempt = await callTarget(
    target,
    { headers, body: payload },
    serving.settings,
    signal,
    "stream",
    headersTimeoutMs,
  )
  if (!attempt.ok) return { ...attempt, dropped }
  // Another upstream is left to try: the answer's start is held until it shows content (pass-through.ts).
  let opening: HeldStart | undefined
  if (hold) {
    const start = await holdStart(attempt.started, target.upstream.format, body, hold)
    if (!start.ok) return { ok: false, failure: start.failure, sent: attempt.sent, dropped }
    opening = start.held
  }
  const encodeOptions: StreamEncodeOptions = {
    model: decoded.model,
    created: Math.floor(request.startedAt / 1000),
    includeUsage: formatModule(request.clientFormat).decodeOptions(client.body).expectUsage === true,
    ...(client.path.sse !== undefined ? { sse: client.path.sse } : {}),
    // The answer echoes the client's settings; `store` as it went: kept only where the upstream was asked to keep it.
    request: { ...client.body, store: options.store === true && !uncarried.includes("store") },
  }
  const inputTokens = await counted
  if (inputTokens !== undefined) encodeOptions.inputTokens = inputTokens
  const { answer } = attempt.started
  // The hold's decoder goes on from where it read to.
  const decoder =
    opening?.decoded?.decoder ?? new StreamDecoder(target.upstream.format, upstreamModule.decodeOptions(body))
  const sealer = new SignatureSealer(target.model)
  // Batches go out with every secret redacted from their errors (a key an upstream quoted).
  const seal = (events: StreamEvent[]) => redactEvents(sealer.push(events), request.secrets)
  const read = async (each: (batch: StreamEvent[]) => void, mode: "streamed" | "whole" = "streamed") => {
    // Streamed: each batch as it is decoded, guarded against a restart after content. Whole: once, at the end,
    // the generation the upstream finished. The facts: the usage the upstream reported, and the stop and errors of
    // the answer the client was given.
    const guard = mode === "streamed" ? new RestartGuard() : undefined
    const held: StreamEvent[] = []
    let facts: AnswerFacts = {}
    const pass = (out: StreamEvent[]) => {
      if (!guard) return void held.push(...out)
      const shown = guard.push(out)
      facts = withEvents(withEvents(facts, out, "usage"), shown, "ending")
      each(seal(shown))
    }
    const feed = (chunk: Buffer) => {
      const out: StreamEvent[] = []
      decoder.feed(chunk, out)
      pass(out)
    }
    try {
      if (opening?.decoded) pass(opening.decoded.events)
      else for (const chunk of opening?.chunks ?? []) feed(chunk)
      // What the answer did while it was held and nothing read it: its loss, or its end.
      if (opening?.lost) throw opening.lost
      if (!opening?.ended)
        for await (const chunk of answer.body as AsyncIterable<Buffer>) {
          feed(chunk)
          if (signal.aborted) break
        }
      if (!signal.aborted) {
        const out: StreamEvent[] = []
        decoder.end(out)
        pass(out)
      }
    } catch (error) {
      const cut = answer.cutBy()?.message ?? `the upstream connection failed mid-answer: ${(error as Error).message}`
      const out: StreamEvent[] = []
      decoder.fail({ type: "error", kind: "network", message: cut }, out)
      pass(out)
    }
    if (guard) return facts
    const last = lastGeneration(held)
    facts = withEvents(withEvents(facts, held, "usage"), last, "ending")
    each(seal(last))
    return facts
  }
  return { ok: true, started: { encodeOptions, read }, sent: attempt.sent, dropped }
}
