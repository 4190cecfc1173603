// `promptline run --trace DIR`: every request the agent sends is recorded in a trace folder with its cache
// verdict, and the verdict is shown after the turn's answer (or printed as a `cache` JSON line with --json).
import type { SendRequest } from "../agent/loop.js"
import { describeVerdict } from "../cache/header.js"
import type { TraceRecord, TraceStore } from "../cache/trace-store.js"
import type { StreamEvent, Usage } from "../providers/stream.js"
import { redactDeep } from "../redact.js"

/** Where requests go, for the trace: the provider and the base URL. */
export interface TraceTarget {
  provider: string
  baseUrl: string
  /** The session id: every request of a run is one conversation. */
  session: string
  /** The credentials requests carry: kept out of the trace (an error event that quotes the key). */
  secrets?: readonly string[]
}

/** Wraps a send function so each request is recorded once its answer has been read. */
export function tracingSend(
  send: SendRequest,
  store: TraceStore,
  target: TraceTarget,
  now: () => number,
  onRecord: (record: TraceRecord) => void,
  onError: (error: Error) => void,
): SendRequest {
  return async (request) => {
    const at = now()
    const response = await send(request)
    let usage: Usage | undefined
    let firstByte: number | undefined
    let error: string | undefined
    async function* traced(): AsyncGenerator<StreamEvent> {
      try {
        for await (const event of response) {
          firstByte ??= now() - at
          if (event.type === "usage") usage = { ...event }
          if (event.type === "error") error = event.message
          yield event
        }
      } finally {
        // A trace that cannot be written never stops the run.
        await store
          .record(
            redactDeep(
              {
                at,
                durationMs: now() - at,
                ...(firstByte !== undefined ? { firstByteMs: firstByte } : {}),
                clientApi: "promptline",
                upstream: { format: request.format, provider: target.provider, url: target.baseUrl },
                model: request.model.id,
                conversation: target.session,
                sent: { body: request.body },
                ...(usage ? { usage: withoutType(usage) } : {}),
                ...(error !== undefined ? { error } : {}),
              },
              target.secrets ?? [],
            ),
          )
          .then(onRecord, (e: unknown) => onError(e instanceof Error ? e : new Error(String(e))))
      }
    }
    return traced()
  }
}

function withoutType(usage: Usage & { type?: string }): Usage {
  const { type: _, ...rest } = usage
  return rest
}

/** The line shown for a recorded request. */
export function traceLine(record: TraceRecord): string {
  return `cache #${record.index}: ${describeVerdict(record.verdict)}\n`
}
