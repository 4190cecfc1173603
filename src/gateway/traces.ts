/**
 * The gateway's traces: each request recorded in a trace store (one JSON line per request, per conversation) with
 * its cache verdict, and the short `x-promptline-cache` header on the answer. The verdict in the header is the
 * prediction made before the answer (the layout against the conversation's previous request); the trace line
 * holds the verdict with the usage the upstream reported.
 */
import { CACHE_HEADER } from "../cache/header.js"
import type { TraceInput, TraceStore } from "../cache/trace-store.js"
import { CONVERSATION_HEADER } from "./conversation-key.js"
import type { GatewayRecord } from "./record.js"

/** The trace store's view of a gateway record. */
export function traceInputOf(record: GatewayRecord): TraceInput | undefined {
  if (!record.sent || !record.upstream) return undefined
  const named = record.received.headers[CONVERSATION_HEADER]
  const input: TraceInput = {
    at: record.startedAt,
    durationMs: record.latencyMs,
    clientApi: record.clientFormat,
    upstream: {
      format: record.upstream.format,
      name: record.upstream.name,
      provider: record.upstream.provider,
      url: record.sent.url,
    },
    model: record.upstream.model,
    received: { url: record.received.url, headers: record.received.headers, body: record.received.body },
    sent: { url: record.sent.url, headers: record.sent.headers, body: record.sent.body },
    status: record.status,
  }
  if (record.firstByteMs !== undefined) input.firstByteMs = record.firstByteMs
  if (named !== undefined && named !== "") input.conversation = named
  if (record.usage) input.usage = { ...record.usage }
  if (record.error) input.error = `${record.error.kind}: ${record.error.message}`
  // The chain when the request went further than its first upstream (a fallback, as usage counts it).
  if (record.attempts && record.attempts.length > 1) input.attempts = record.attempts.map((a) => ({ ...a }))
  return input
}

/** The two gateway hooks that trace: the header before the answer, the trace line after it. */
export interface GatewayTracing {
  answerHeaders(early: GatewayRecord): Promise<Record<string, string> | undefined>
  /** Records a finished request; resolves when its line is written (failures go to `onError`). */
  onRequest(record: GatewayRecord): Promise<void>
}

/** Hooks that record every request in `store`; a trace that cannot be written is reported, never fatal. */
export function gatewayTracing(store: TraceStore, onError: (error: Error) => void): GatewayTracing {
  return {
    async answerHeaders(early) {
      const input = traceInputOf(early)
      if (!input) return undefined
      try {
        const preview = await store.preview(input)
        return { [CACHE_HEADER]: preview.header }
      } catch (error) {
        onError(error as Error)
        return undefined
      }
    },
    async onRequest(record) {
      const input = traceInputOf(record)
      if (!input) return
      try {
        await store.record(input)
      } catch (error) {
        onError(error as Error)
      }
    },
  }
}
