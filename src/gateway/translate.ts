/**
 * The HTTP translate pipeline: one translation attempt against the request's target (translation.ts), then the
 * upstream's answer written again in the client's format, streamed or whole. Fields dropped on the way are named
 * in `x-promptline-dropped`.
 */
import { isErrorLevel } from "../providers/completeness.js"
import { providerErrorFromEvent } from "../providers/errors.js"
import { formatModule } from "../providers/formats.js"
import type { StreamErrorEvent, StreamEvent } from "../providers/stream.js"
import type { PipelineResult, RecordedBody } from "./outcome.js"
import { DROPPED_HEADER, droppedHeader, earlyRecord } from "./record.js"
import type { HttpReply } from "./reply.js"
import type { DecidedRequest, TranslatedRequest } from "./request.js"
import type { GatewayShared, ServingConfig } from "./serving.js"
import { attemptTranslation, type Translation } from "./translation.js"

/** Translates one request and its answer. */
export async function translate(
  request: TranslatedRequest,
  reply: HttpReply,
  serving: ServingConfig,
  shared: GatewayShared,
): Promise<PipelineResult> {
  const client = { body: request.body, path: request.api.route }
  const attempt = await attemptTranslation(request, request.target, client, serving, shared, reply.gone)
  if (!attempt.ok) {
    reply.failWith(attempt.failure.error, request.secrets)
    return { facts: {}, dropped: attempt.dropped, ...(attempt.sent ? { sent: attempt.sent } : {}) }
  }
  return writeTranslation(request, attempt, reply, shared)
}

/**
 * Writes a translated answer that began in the client's format, streamed or whole (the request's `target` is the
 * one that answered). Once its first byte left, nothing is retried.
 */
export async function writeTranslation(
  request: TranslatedRequest,
  attempt: { started: Translation; sent: RecordedBody; dropped: readonly string[] },
  reply: HttpReply,
  shared: GatewayShared,
): Promise<PipelineResult> {
  const learned = { dropped: attempt.dropped, sent: attempt.sent }
  const { read, encodeOptions } = attempt.started
  const module = formatModule(request.clientFormat)
  const headers = {
    ...(learned.dropped.length > 0 ? { [DROPPED_HEADER]: droppedHeader(learned.dropped) } : {}),
    ...(shared.answerHeaders ? await shared.answerHeaders(earlyRecord(request, learned)) : {}),
  }
  if (!(request.api.route.stream ?? request.decoded.options.stream ?? false)) {
    const events: StreamEvent[] = []
    const facts = await read((batch) => events.push(...batch), "whole")
    // A whole answer is written only once the upstream ended: one that failed, even after content, is an error
    // status in the client's shape, never a 200 holding part of an answer.
    const failed = events.find((e): e is StreamErrorEvent => e.type === "error" && isErrorLevel(e))
    if (failed) reply.failWith(wholeAnswerError(failed), request.secrets)
    else {
      reply.head(200, { "content-type": "application/json", ...headers })
      reply.end(JSON.stringify(module.encodeResponse(events, encodeOptions)))
    }
    return { facts, ...learned }
  }
  const encoder = module.createStreamEncoder(encodeOptions)
  reply.head(200, { "content-type": streamedType(request), "cache-control": "no-cache", ...headers })
  reply.res.flushHeaders()
  const facts = await read((batch) => {
    let text = ""
    for (const event of batch) text += encoder.push(event)
    if (text !== "") reply.write(text)
  })
  reply.end(encoder.end())
  return { facts, ...learned }
}

/** Gemini without `alt=sse` streams one JSON array; every other streamed answer is server-sent events. */
function streamedType(request: DecidedRequest): string {
  const { route } = request.api
  return route.stream === true && route.sse === false ? "application/json" : "text/event-stream; charset=utf-8"
}

/**
 * The error a whole answer that failed is given as: the upstream's own kind, and a body that ended before its
 * answer did (`truncated`) as the upstream connection failing, which clients answer with a retry.
 */
function wholeAnswerError(failed: StreamErrorEvent) {
  return providerErrorFromEvent(failed.kind === "truncated" ? { ...failed, kind: "network" } : failed)
}
