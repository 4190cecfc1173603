/**
 * Token counting through a translating route: the client's counting request (Anthropic `count_tokens`, OpenAI
 * Responses `input_tokens`, Gemini `countTokens`) is read by its format's request decoder, encoded for the
 * upstream as a generation request would be, and counted by the upstream's own counting endpoint when its format
 * has one; otherwise promptline counts it (exact for OpenAI's tokenizers, an estimate for others). The answer is
 * the client's own counting shape.
 */

import { ContextManager } from "../history/context-manager.js"
import { promptCount } from "../history/request-count.js"
import type { TokenCounter } from "../history/tokens.js"
import { resolveModel } from "../models/resolve.js"
import type { ModelInfo } from "../models/types.js"
import { countTokens, hasCountingEndpoint } from "../providers/count.js"
import type { WireFormatDescriptor } from "../providers/descriptor.js"
import { descriptorOf } from "../providers/descriptors.js"
import { formatModule } from "../providers/formats.js"
import type { DecodedRequest } from "../providers/types.js"
import { GatewayError } from "./errors.js"
import type { Exchange } from "./exchange.js"
import type { RoutePlan } from "./routing.js"
import { upstreamEndpoint } from "./target.js"

/** What counting through a translating route needs besides the exchange. */
export interface CountInput {
  plan: RoutePlan
  key: string
  /** User model rows (limits of models the catalog does not know). */
  models: readonly ModelInfo[]
  counter: () => Promise<TokenCounter>
}

/** Counts the client's request as the upstream would see it and answers in the client's counting shape. */
export async function countTranslated(ex: Exchange, decoded: DecodedRequest, input: CountInput): Promise<void> {
  // Each client counting API's answer for a count: its descriptor's.
  const answer = (descriptorOf(ex.clientFormat) as WireFormatDescriptor).counting?.answer
  if (!answer)
    throw new GatewayError({ kind: "not-found", message: `the ${ex.clientFormat} API has no token-counting endpoint` })
  const { plan } = input
  const model = resolveModel(plan.model, { provider: plan.upstream.provider, models: input.models }).model
  let tokens: number
  if (hasCountingEndpoint(plan.upstream.format)) {
    const encoded = formatModule(plan.upstream.format).encode({
      prompt: decoded.prompt,
      messages: decoded.messages,
      model,
      options: { ...decoded.options, stream: false },
    })
    const body = encoded.body as Record<string, unknown>
    if (typeof body.model === "string") body.model = plan.model
    ex.secrets.push(input.key)
    tokens = await countTokens(upstreamEndpoint(plan.upstream, input.key), {
      format: plan.upstream.format,
      model: plan.model,
      body,
      signal: ex.abort.signal,
    })
  } else {
    const fit = new ContextManager(await input.counter()).fit(decoded.messages, {
      model,
      now: 0,
      ...promptCount(decoded.prompt),
      wireFormat: plan.upstream.format,
    })
    tokens = fit.tokens.before
  }
  ex.markFirstByte()
  ex.res.writeHead(200, { "content-type": "application/json" })
  ex.res.end(JSON.stringify(answer(tokens)))
}
