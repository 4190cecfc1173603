/**
 * Token counting through a translating route: the client's counting request (Anthropic `count_tokens`, OpenAI
 * Responses `input_tokens`, Gemini `countTokens`) is read by its format's request decoder, encoded for the
 * upstream as a generation request would be, and counted by the upstream's own counting endpoint when its format
 * has one; otherwise promptline counts it (exact for OpenAI's tokenizers, an estimate for others). The answer is
 * the client's own counting shape.
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
import type { TranslatedRequest } from "./request.js"
import type { GatewayShared, ServingConfig } from "./serving.js"

/** Counts the client's request as the upstream would see it and answers in the client's counting shape. */
export async function countTranslated(
  request: TranslatedRequest,
  reply: HttpReply,
  serving: ServingConfig,
  shared: GatewayShared,
): Promise<PipelineResult> {
  // Each client counting API's answer for a count: its descriptor's.
  const answer = (descriptorOf(request.clientFormat) as WireFormatDescriptor).counting?.answer
  if (!answer)
    throw new GatewayError({
      kind: "not-found",
      message: `the ${request.clientFormat} API has no token-counting endpoint`,
    })
  const { target } = request
  // The deferred tools as the first upstream request of a generation would carry them.
  const decoded =
    resolveDeferredTools(request.decoded, target.upstream.format, request.route.deferredTools)?.request ??
    request.decoded
  const model = resolveModel(target.model, { provider: target.upstream.provider, models: serving.models }).model
  let tokens: number
  if (target.url !== undefined) {
    const encoded = formatModule(target.upstream.format).encode({
      prompt: decoded.prompt,
      messages: decoded.messages,
      model,
      options: { ...decoded.options, stream: false },
    })
    const body = encoded.body as Record<string, unknown>
    if (typeof body.model === "string") body.model = target.model
    tokens = await countTokens(target.endpoint, {
      format: target.upstream.format,
      model: target.model,
      body,
      signal: reply.gone.signal,
    })
  } else {
    const fit = new ContextManager(await shared.counter()).fit(decoded.messages, {
      model,
      now: 0,
      ...promptCount(decoded.prompt),
      wireFormat: target.upstream.format,
    })
    tokens = fit.tokens.before
  }
  reply.head(200, { "content-type": "application/json" })
  reply.end(JSON.stringify(answer(tokens)))
  return NOTHING_LEARNED
}
