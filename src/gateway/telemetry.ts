/**
 * OpenTelemetry spans after the GenAI semantic conventions, one per request, through `@opentelemetry/api`: a
 * no-op unless the host process registered an SDK, so a fleet of gateways reports to the tracing backend it
 * already runs. Attributes carry names, models and token counts, never a prompt or a key.
 */
import { type Attributes, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api"
import type { GatewayRecord } from "./record.js"

/** The instrumentation scope name of the gateway's spans. */
export const TRACER_NAME = "promptline.gateway"

/** The span attributes of a finished request (GenAI conventions, plus promptline's own under `promptline.`). */
export function spanAttributes(record: GatewayRecord): Attributes {
  const a: Attributes = {
    "gen_ai.operation.name": "chat",
    "gen_ai.request.model": record.model,
    "http.response.status_code": record.status,
    "http.response.body.size": record.bytes,
    "promptline.client.api": record.clientFormat,
    "promptline.transport": record.transport,
    "gen_ai.conversation.id": record.conversationKey,
  }
  if (record.upstream) {
    a["gen_ai.provider.name"] = record.upstream.provider
    a["gen_ai.response.model"] = record.upstream.model
    a["promptline.upstream"] = record.upstream.name
    a["promptline.upstream.api"] = record.upstream.format
  }
  if (record.mode) a["promptline.mode"] = record.mode
  if (record.usage) {
    a["gen_ai.usage.input_tokens"] = record.usage.input + record.usage.cacheRead + record.usage.cacheWrite
    a["gen_ai.usage.output_tokens"] = record.usage.output
    a["gen_ai.usage.cache_read.input_tokens"] = record.usage.cacheRead
    a["gen_ai.usage.cache_creation.input_tokens"] = record.usage.cacheWrite
  }
  if (record.stop) a["gen_ai.response.finish_reasons"] = [record.stop]
  if (record.dropped.length > 0) a["promptline.dropped"] = record.dropped
  if (record.error) a["error.type"] = record.error.kind
  return a
}

/** Writes the span of a finished request (start and end times from the record). */
export function emitSpan(record: GatewayRecord): void {
  const tracer = trace.getTracer(TRACER_NAME)
  const span = tracer.startSpan(`chat ${record.model}`, { kind: SpanKind.SERVER, startTime: record.startedAt })
  // Without a registered SDK the span records nothing: its attributes are not worked out for it.
  if (!span.isRecording()) return
  span.setAttributes(spanAttributes(record))
  if (record.error) span.setStatus({ code: SpanStatusCode.ERROR, message: record.error.message })
  span.end(record.startedAt + record.latencyMs)
}
