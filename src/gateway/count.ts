/**
 * Token counting through a translating route: the client's counting request (Anthropic `count_tokens`, OpenAI
 * Responses `input_tokens`, Gemini `countTokens`) is read by its format's request decoder, encoded for the
 * upstream as a generation request would be, and counted by the upstream's own counting endpoint when its format
 * has one; otherwise promptline counts it (exact for OpenAI's tokenizers, an estimate for others). The answer is
 * the client's own counting shape. On a route with several upstreams, fallback.ts counts along them with countFor.
 */

import { ContextManager } from "../history/context-manager.js"
import { promptCount } from "../history/request-count.js"
import { resolveModel } from "../models/resolve.js"
import { countTokens } from "../providers/count.js"
import type { WireFormatDescriptor } from "../providers/descriptor.js"
import { descriptorOf } from "../providers/descriptors.js"
import { formatModule } from "../providers/formats.js"
import { resolveDeferredTools } from "./deferred-tools/index.js"
import { GatewayError } from "./errors.js"
import { NOTHING_LEARNED, type PipelineResult } from "./outcome.js"
import type { HttpReply } from "./reply.js"
import type { RequestContext, TranslatedRequest } from "./request.js"
import type { GatewayShared, ServingConfig } from "./serving.js"
import type { UpstreamTarget } from "./target.js"
import { timeoutError } from "./upstream.js"

/** Counts the client's request as the upstream would see it and answers in the client's counting shape. */
export async function countTranslated(
  request: TranslatedRequest,
  reply: HttpReply,
  serving: ServingConfig,
  shared: GatewayShared,
): Promise<PipelineResult> {
  const answer = countingAnswer(request)
  const tokens = await countFor(request, request.target, serving, shared, reply.gone.signal)
  return answerCount(reply, answer, tokens)
}

/**
 * The client's counting answer (each client counting API's is its descriptor's); a GatewayError when its API has
 * no counting endpoint.
 */
export function countingAnswer(request: RequestContext): (tokens: number) => unknown {
  const answer = (descriptorOf(request.clientFormat) as WireFormatDescriptor).counting?.answer
  if (!answer)
    throw new GatewayError({
      kind: "not-found",
      message: `the ${request.clientFormat} API has no token-counting endpoint`,
    })
  return answer
}

/** Writes a count in the client's counting shape. */
export function answerCount(reply: HttpReply, answer: (tokens: number) => unknown, tokens: number): PipelineResult {
  reply.head(200, { "content-type": "application/json" })
  reply.end(JSON.stringify(answer(tokens)))
  return NOTHING_LEARNED
}

/**
 * How many prompt tokens the request holds as `target`'s upstream would be sent it: its counting endpoint's
 * answer when its format has one, else promptline's count. A failed call throws its typed error (ProviderError);
 * with `headersTimeoutMs` (another upstream could be asked), an answer slower than that is a network failure.
 */
export async function countFor(
  request: TranslatedRequest,
  target: UpstreamTarget,
  serving: ServingConfig,
  shared: GatewayShared,
  signal: AbortSignal,
  headersTimeoutMs?: number,
): Promise<number> {
  // The deferred tools as the first upstream request of a generation would carry them.
  const decoded =
    resolveDeferredTools(request.decoded, target.upstream.format, request.route.deferredTools)?.request ??
    request.decoded
  const model = resolveModel(target.model, { provider: target.upstream.provider, models: serving.models }).model
  if (target.url === undefined) {
    const fit = new ContextManager(await shared.counter()).fit(decoded.messages, {
      model,
      now: 0,
      ...promptCount(decoded.prompt),
      wireFormat: target.upstream.format,
    })
    return fit.tokens.before
  }
  const encoded = formatModule(target.upstream.format).encode({
    prompt: decoded.prompt,
    messages: decoded.messages,
    model,
    options: { ...decoded.options, stream: false },
  })
  const body = encoded.body as Record<string, unknown>
  if (typeof body.model === "string") body.model = target.model
  const call = { format: target.upstream.format, model: target.model, body }
  if (headersTimeoutMs === undefined) return countTokens(target.endpoint, { ...call, signal })
  // The client going away or the time running out, whichever comes first, ends the call.
  const limited = new AbortController()
  const stop = () => limited.abort()
  const timer = setTimeout(stop, headersTimeoutMs)
  if (signal.aborted) stop()
  else signal.addEventListener("abort", stop, { once: true })
  try {
    return await countTokens(target.endpoint, { ...call, signal: limited.signal })
  } catch (error) {
    if (limited.signal.aborted && !signal.aborted) throw timeoutError("headers", headersTimeoutMs, target.url)
    throw error
  } finally {
    clearTimeout(timer)
    signal.removeEventListener("abort", stop)
  }
}
