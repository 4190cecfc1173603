/**
 * Translate mode: the client's body is read into promptline's terms (the client format's `decodeRequest`),
 * fitted and cache-planned when the route asks, encoded for the upstream's format (portability included:
 * ids, signatures, thinking from other models, orphaned calls), sent, and the upstream's stream decoded and
 * written again in the client's format. Fields the client sent that promptline does not model are dropped and
 * named in `x-promptline-dropped`.
 */

import { ContextManager } from "../history/context-manager.js"
import type { Message } from "../history/message.js"
import { promptCount } from "../history/request-count.js"
import type { TokenCounter } from "../history/tokens.js"
import { resolveModel } from "../models/resolve.js"
import type { ModelInfo } from "../models/types.js"
import { uncarriedPaths } from "../providers/carried.js"
import { isErrorLevel } from "../providers/completeness.js"
import { StreamDecoder } from "../providers/decode.js"
import { providerErrorFromEvent } from "../providers/errors.js"
import { formatModule, type SpokenFormat } from "../providers/formats.js"
import type { StreamErrorEvent, StreamEvent } from "../providers/stream.js"
import type { DecodedRequest, EncodeOptions, RequestRoute, StreamEncodeOptions } from "../providers/types.js"
import { lastGeneration, RestartGuard } from "./answer-guard.js"
import type { ConversationChangeLogs } from "./change-logs.js"
import type { Exchange } from "./exchange.js"
import { promptTokens } from "./prompt-tokens.js"
import { DROPPED_HEADER, type RecordUsage } from "./record.js"
import type { RoutePlan } from "./routing.js"
import { redactEvents } from "./secrets.js"
import { isApiContentType, notTheApi, sendUpstream, type UpstreamCall } from "./send.js"
import type { GatewaySettings } from "./settings.js"
import { SignatureSealer, unsealMessages } from "./signatures.js"
import { generationUrl, upstreamEndpoint } from "./target.js"

/** What translating one request needs besides the exchange. */
export interface TranslateInput {
  plan: RoutePlan
  body: Record<string, unknown>
  route: RequestRoute
  key: string
  settings: GatewaySettings
  /** User model rows (limits of models the catalog does not know). */
  models: readonly ModelInfo[]
  /** The token counter `fit` uses (loaded once per gateway). */
  counter: () => Promise<TokenCounter>
  /** The change logs of fitted conversations, so a conversation's cuts stay where they were. */
  changeLogs: ConversationChangeLogs
}

/** The header value naming dropped fields (bounded; the record keeps the full list). */
export function droppedHeader(dropped: readonly string[]): string {
  const text = dropped.join(", ")
  return text.length > 1000 ? `${text.slice(0, 999)}…` : text
}

/** The request as the upstream will get it: fitted when asked, with promptline's cache plan when asked. */
async function prepare(
  decoded: DecodedRequest,
  model: ModelInfo,
  input: TranslateInput,
  conversation: string | undefined,
): Promise<{ messages: Message[]; options: EncodeOptions }> {
  let messages = decoded.messages
  if (input.plan.fit) {
    const stored = conversation === undefined ? undefined : await input.changeLogs.open(conversation)
    const manager = new ContextManager(await input.counter(), {
      models: input.models,
      ...(stored ? { changeLog: stored.log } : {}),
    })
    // `now` stamps the fit's edits; a fixed 0 keeps the output a function of the requests alone.
    const fitted = manager.fit(messages, {
      model,
      now: 0,
      ...promptCount(decoded.prompt),
      wireFormat: input.plan.upstream.format,
    })
    messages = fitted.messages
    // Saved before the request goes out, so the conversation's next request, on any instance, finds these cuts.
    if (stored && fitted.edits.length > 0) await input.changeLogs.save(conversation!, stored)
  }
  const options: EncodeOptions = { ...decoded.options, stream: true }
  if (input.plan.cache === "optimize") {
    const cache = decoded.options.cache === false ? {} : { ...decoded.options.cache }
    if (cache.sessionId === undefined && conversation !== undefined) cache.sessionId = conversation
    options.cache = cache
  }
  return { messages, options }
}

/** The state of one translated request that translating fills in: an HTTP exchange or a WebSocket turn. */
export interface TranslatingCall extends UpstreamCall {
  readonly clientFormat: SpokenFormat
  readonly startedAt: number
  /** Secrets to keep out of every text the record holds. */
  readonly secrets: (string | undefined)[]
  conversationKey?: string
  /** The client's body, as it came. */
  body: unknown
  dropped: string[]
  usage?: RecordUsage
  stop?: string
  error?: { kind: string; message: string }
}

/** An upstream answer being translated: how to write it for the client, and its events as they are decoded. */
export interface Translation {
  /** The options of the client format's stream encoder (the model name the client sees, `created`, ...). */
  encodeOptions: StreamEncodeOptions
  /**
   * Reads the upstream's answer to its end, handing each decoded batch of events to `each` (`streamed`, the
   * default: as they come, a restart after content ending the answer with an error; `whole`: once, at the end,
   * the generation the upstream finished). A cut or a failed connection becomes an error event, never a throw.
   * Usage, stop and error are noted on the call.
   */
  read(each: (batch: StreamEvent[]) => void, mode?: "streamed" | "whole"): Promise<void>
}

/**
 * Encodes the client's request for the upstream and sends it. Throws (a GatewayError or ProviderError) when the
 * upstream refused it, before any byte of an answer; otherwise the answer is ready to be read.
 */
export async function openTranslation(
  call: TranslatingCall,
  request: DecodedRequest,
  input: TranslateInput,
): Promise<Translation> {
  // Signatures the gateway sealed on earlier answers name their model again, for portability to go by.
  const decoded = { ...request, messages: unsealMessages(request.messages) }
  const { plan, settings } = input
  const upstreamModule = formatModule(plan.upstream.format)
  const model = resolveModel(plan.model, { provider: plan.upstream.provider, models: input.models }).model
  const { messages, options } = await prepare(decoded, model, input, call.conversationKey)
  const encoded = upstreamModule.encode({ prompt: decoded.prompt, messages, model, options })
  const body = encoded.body as Record<string, unknown>
  if (typeof body.model === "string") body.model = plan.model
  // Named: what the client's format holds and promptline does not model, and what the upstream's body cannot carry.
  const uncarried = encoded.uncarried ?? []
  call.dropped = [...decoded.unmodeled, ...uncarriedPaths(uncarried, decoded.sources)]
  // A model that reads no images gets a note in their place (portability); the client is told, as for a field.
  if (encoded.diagnostics.some((d) => d.code === "image-omitted"))
    call.dropped.push(`image (${plan.model} reads no images; replaced by a note)`)
  const endpoint = upstreamEndpoint(plan.upstream, input.key)
  call.secrets.push(input.key)
  const url = generationUrl(endpoint, plan.model, true)
  // The encoder's own headers (Anthropic betas for context management) go with the body it made.
  const headers: Record<string, string> = { ...endpoint.headers, ...encoded.headers, accept: "text/event-stream" }
  const payload = JSON.stringify(body)
  // A client format that reports the input before the answer gets promptline's count when the upstream's usage
  // comes only at the end; counted while the upstream is asked.
  const counted =
    formatModule(call.clientFormat).inputUsageAtStart && !upstreamModule.inputUsageAtStart
      ? input
          .counter()
          .then((counter) => promptTokens(counter, decoded.prompt, messages, model, plan.upstream.format))
          .catch(() => undefined)
      : undefined
  const { answer, type, failure: refused } = await sendUpstream(call, { url, headers, payload, body }, settings)
  if (refused) {
    // A page that is not the API's (a proxy's HTML, a 2xx without a stream) is told in a short clean message.
    if (answer.status < 400 || !isApiContentType(type))
      throw notTheApi(plan.upstream.name, answer.status, type, refused.error, "stream")
    throw refused.error
  }
  const encodeOptions: StreamEncodeOptions = {
    model: decoded.model,
    created: Math.floor(call.startedAt / 1000),
    includeUsage: formatModule(call.clientFormat).decodeOptions(call.body).expectUsage === true,
    ...(input.route.sse !== undefined ? { sse: input.route.sse } : {}),
    // The answer echoes the client's settings; `store` as it went: kept only where the upstream was asked to keep it.
    request: {
      ...(call.body as Record<string, unknown>),
      store: options.store === true && !uncarried.includes("store"),
    },
  }
  const inputTokens = await counted
  if (inputTokens !== undefined) encodeOptions.inputTokens = inputTokens
  const decoder = new StreamDecoder(plan.upstream.format, upstreamModule.decodeOptions(body))
  const sealer = redactingSealer(new SignatureSealer(plan.model), call.secrets)
  // The record holds the usage the upstream reported, and the stop and errors of the answer the client was given
  // (warnings such as arguments that are not JSON leave an answer whole).
  const note = (decoded: readonly StreamEvent[], shown: readonly StreamEvent[]) => {
    for (const e of decoded)
      if (e.type === "usage")
        call.usage = { input: e.input, output: e.output, cacheRead: e.cacheRead, cacheWrite: e.cacheWrite }
    for (const e of shown)
      if (e.type === "stop") call.stop = e.reason
      else if (e.type === "error" && isErrorLevel(e)) call.error = { kind: e.kind ?? "server", message: e.message }
  }
  const read = async (each: (batch: StreamEvent[]) => void, mode: "streamed" | "whole" = "streamed") => {
    // Streamed: each batch as it is decoded, guarded against a restart after content. Whole: once, at the end,
    // the generation the upstream finished.
    const guard = mode === "streamed" ? new RestartGuard() : undefined
    const held: StreamEvent[] = []
    const pass = (out: StreamEvent[]) => {
      if (!guard) return void held.push(...out)
      const shown = guard.push(out)
      note(out, shown)
      each(sealer.push(shown))
    }
    try {
      for await (const chunk of answer.body as AsyncIterable<Buffer>) {
        const out: StreamEvent[] = []
        decoder.feed(chunk, out)
        pass(out)
        if (call.abort.signal.aborted) break
      }
      if (!call.abort.signal.aborted) {
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
    if (guard) return
    const last = lastGeneration(held)
    note(held, last)
    each(sealer.push(last))
  }
  return { encodeOptions, read }
}

/** Translates one request and its answer. `decoded` is the client's body already read by `decodeRequest`. */
export async function translate(ex: Exchange, decoded: DecodedRequest, input: TranslateInput): Promise<void> {
  const client = formatModule(ex.clientFormat)
  const { read, encodeOptions } = await openTranslation(ex, decoded, input)
  const clientStream = input.route.stream ?? decoded.options.stream ?? false
  const dropped = {
    ...(ex.dropped.length > 0 ? { [DROPPED_HEADER]: droppedHeader(ex.dropped) } : {}),
    ...(await ex.extraHeaders()),
  }
  if (!clientStream) {
    const events: StreamEvent[] = []
    await read((batch) => events.push(...batch), "whole")
    // A whole answer is written only once the upstream ended: one that failed, even after content, is an error
    // status in the client's shape, never a 200 holding part of an answer.
    const failed = events.find((e): e is StreamErrorEvent => e.type === "error" && isErrorLevel(e))
    if (failed) throw wholeAnswerError(failed)
    ex.markFirstByte()
    ex.res.writeHead(200, { "content-type": "application/json", ...dropped })
    ex.res.end(JSON.stringify(client.encodeResponse(events, encodeOptions)))
    return
  }
  const encoder = client.createStreamEncoder(encodeOptions)
  // Gemini without alt=sse streams one JSON array; every other streamed answer is server-sent events.
  const contentType =
    input.route.stream === true && input.route.sse === false ? "application/json" : "text/event-stream; charset=utf-8"
  ex.markFirstByte()
  ex.res.writeHead(200, { "content-type": contentType, "cache-control": "no-cache", ...dropped })
  ex.res.flushHeaders()
  await read((batch) => {
    let text = ""
    for (const event of batch) text += encoder.push(event)
    if (text !== "") ex.res.write(text)
  })
  ex.res.end(encoder.end())
}

/**
 * The error a whole answer that failed is given as: the upstream's own kind, and a body that ended before its
 * answer did (`truncated`) as the upstream connection failing, which clients answer with a retry.
 */
function wholeAnswerError(failed: StreamErrorEvent) {
  return providerErrorFromEvent(failed.kind === "truncated" ? { ...failed, kind: "network" } : failed)
}

/** A sealer whose batches come out with every secret redacted from their errors (a key an upstream quoted). */
function redactingSealer(
  sealer: SignatureSealer,
  secrets: readonly (string | undefined)[],
): Pick<SignatureSealer, "push"> {
  return { push: (events) => redactEvents(sealer.push(events), secrets) }
}
