/**
 * `GET /v1/models` (Anthropic and OpenAI clients share the path; the Anthropic SDK sends `anthropic-version`)
 * and Gemini's `GET /v1beta/models`: with routes, the model names the routes match literally, in the
 * client's list shape (its descriptor's `api.modelList`); without, the list of the client's own provider, forwarded.
 */
import type { WireFormatDescriptor } from "../providers/descriptor.js"
import { descriptorOf } from "../providers/descriptors.js"
import { callTarget } from "./attempt.js"
import { NOTHING_LEARNED, type PipelineResult } from "./outcome.js"
import { answerFailure } from "./pass-through.js"
import type { HttpReply } from "./reply.js"
import type { RequestContext } from "./request.js"
import type { ServingConfig } from "./serving.js"

/** A model list body in the shape of the client's API (Chat and Responses clients share OpenAI's). */
export function modelList(client: WireFormatDescriptor, ids: readonly string[]): unknown {
  const shape = client.api?.modelList?.shape
  if (!shape) throw new Error(`the ${client.format} API lists no models`)
  return shape(ids)
}

/** The model names routes match literally (patterns with `*` or `?` name no one model). */
export function routedModelNames(routes: readonly { match: string }[]): string[] {
  return [...new Set(routes.map((r) => r.match).filter((m) => !/[*?]/.test(m)))]
}

/** Answers a model list: the routes' names, or the official provider's list (the request's target) forwarded. */
export async function answerModelList(
  request: RequestContext,
  reply: HttpReply,
  serving: ServingConfig,
): Promise<PipelineResult> {
  const routes = serving.config?.routes ?? []
  if (routes.length > 0) {
    reply.head(200, { "content-type": "application/json" })
    reply.end(JSON.stringify(modelList(descriptorOf(request.clientFormat), routedModelNames(routes))))
    return NOTHING_LEARNED
  }
  const target = request.target!
  const headers = { ...target.endpoint.headers }
  const attempt = await callTarget(target, { headers }, serving.settings, reply.gone, "JSON")
  if (!attempt.ok) {
    const type = String(attempt.failure.own?.headers["content-type"] ?? "")
    answerFailure(reply, attempt.failure, request.secrets, { "content-type": type || "application/json" })
    return NOTHING_LEARNED
  }
  const { answer, type } = attempt.started
  reply.head(answer.status, { "content-type": type || "application/json" })
  for await (const chunk of answer.body as AsyncIterable<Buffer>) reply.write(chunk)
  reply.end()
  return NOTHING_LEARNED
}
