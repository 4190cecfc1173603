/**
 * The record of one request through the gateway, handed to the `onRequest` hook once the answer ended: what
 * the cache explainer, traces, the span and the log line are made of. One builder makes every record, for
 * both transports and both modes, from the request as decided and its outcome, credentials redacted before a
 * record exists.
 */
import type { WireFormat } from "../models/types.js"
import type { SpokenFormat } from "../providers/formats.js"
import { laterConversationKey } from "./conversation-key.js"
import type { Outcome, PipelineResult, RecordAttempt, RecordedBody, RecordUsage } from "./outcome.js"
import type { RequestContext } from "./request.js"
import type { GatewayMode } from "./routing.js"
import { redactDeep, redactHeaders, redactUrl } from "./secrets.js"

export type { RecordAttempt, RecordedBody, RecordUsage } from "./outcome.js"

/** The header that names the request fields dropped when translating. */
export const DROPPED_HEADER = "x-promptline-dropped"

/** The longest `x-promptline-dropped` value, in characters. */
const DROPPED_HEADER_LIMIT = 1000

/**
 * The `x-promptline-dropped` value: the paths comma-separated, as many whole ones as fit in 1,000 characters and
 * then how many more there are (the record keeps the full list). A header holds printable ASCII only, so any
 * other character of a path (a key the client named in its own script, a line break) is written as `\uXXXX`.
 */
export function droppedHeader(dropped: readonly string[]): string {
  const shown: string[] = []
  let length = 0
  for (const [i, path] of dropped.entries()) {
    const safe = path.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)
    const left = dropped.length - i
    // Room kept for the tail that says how many more (", and 123456 more").
    const room = left === 1 ? DROPPED_HEADER_LIMIT : DROPPED_HEADER_LIMIT - `, and ${left} more`.length
    if (length + (shown.length > 0 ? 2 : 0) + safe.length > room) return [...shown, `and ${left} more`].join(", ")
    length += (shown.length > 0 ? 2 : 0) + safe.length
    shown.push(safe)
  }
  return shown.join(", ")
}

/** One request through the gateway. */
export interface GatewayRecord {
  /** 1, 2, … in arrival order. */
  seq: number
  /** Milliseconds since the epoch when the request arrived (the gateway's only clock reading besides latency). */
  startedAt: number
  /** From arrival to the answer's end. */
  latencyMs: number
  /** From arrival to the answer's first byte, when one was sent. */
  firstByteMs?: number
  clientFormat: SpokenFormat
  /** `http` or `websocket`. */
  transport: "http" | "websocket"
  /** The model the client asked for. */
  model: string
  upstream?: { name: string; provider: string; format: WireFormat; model: string }
  mode?: GatewayMode
  /** The status sent to the client. */
  status: number
  /** Answer bytes written to the client (over a WebSocket, the response's messages). */
  bytes: number
  usage?: RecordUsage
  /** Why the answer stopped (`end`, `tool_use`, `length`, `error`, …) when it was decoded. */
  stop?: string
  /** The failure, when the request failed. */
  error?: { kind: string; message: string }
  /** Request fields dropped when translating (JSON paths). */
  dropped: string[]
  /**
   * A route with several upstreams: each upstream tried or passed over, in order (`upstream` and `mode` name the
   * one that answered). Absent on a route with one upstream.
   */
  attempts?: RecordAttempt[]
  /**
   * From the `x-promptline-conversation` header, else a hash of the system prompt's start, the tool names and the
   * first user message ("" when the body could not be read).
   */
  conversationKey: string
  received: RecordedBody
  /** As sent upstream; absent when nothing was sent. */
  sent?: RecordedBody
}

/** The record's fields that the request alone decides. */
function requestFields(request: RequestContext, conversationKey: string): GatewayRecord {
  const { route } = request
  const record: GatewayRecord = {
    seq: request.seq,
    startedAt: request.startedAt,
    latencyMs: 0,
    clientFormat: request.clientFormat,
    transport: request.transport,
    model: request.model,
    status: 0,
    bytes: 0,
    dropped: [],
    conversationKey,
    received: {
      url: redactUrl(`${request.url.pathname}${request.url.search}`),
      headers: redactHeaders(request.headers),
      body: request.body,
    },
  }
  if (route) {
    const { upstream } = route
    record.upstream = { name: upstream.name, provider: upstream.provider, format: upstream.format, model: route.model }
    record.mode = route.mode
  }
  return record
}

/**
 * The record of a finished request. A conversation key not known before the answer is worked out here, after
 * it ended (same-format: the body went upstream unread).
 */
export function recordOf(request: RequestContext, outcome: Outcome): GatewayRecord {
  const key =
    request.conversationKey ??
    laterConversationKey(request.headers, request.clientFormat, request.body, request.api?.route ?? {})
  const record = requestFields(request, key)
  record.latencyMs = Math.max(0, outcome.endedAt - request.startedAt)
  record.status = outcome.status
  record.bytes = outcome.bytes
  record.dropped = [...outcome.dropped]
  if (outcome.firstByteAt !== undefined) record.firstByteMs = Math.max(0, outcome.firstByteAt - request.startedAt)
  const facts = typeof outcome.facts === "function" ? outcome.facts() : outcome.facts
  if (facts.usage) record.usage = facts.usage
  if (facts.stop) record.stop = facts.stop
  const error = outcome.told ?? facts.error
  if (error) record.error = error
  if (outcome.sent) record.sent = outcome.sent
  if (outcome.chain) {
    record.attempts = outcome.chain.attempts.map((a) => ({ ...a }))
    const step = outcome.chain.answered
    if (step) {
      const { upstream } = step
      record.upstream = { name: upstream.name, provider: upstream.provider, format: upstream.format, model: step.model }
      record.mode = step.mode
    }
  }
  // Credentials are out of the record before anyone sees it: the log line, the span and the traces are made of it.
  return redactDeep(record, request.secrets)
}

/**
 * The record as known just before a successful answer's headers go out (for `answerHeaders`): no status, usage or
 * latency yet, and only a conversation key known up front (working one out would decode the body on the answer's
 * path).
 */
export function earlyRecord(request: RequestContext, learned: Pick<PipelineResult, "dropped" | "sent">): GatewayRecord {
  const record = requestFields(request, request.conversationKey ?? "")
  record.dropped = [...learned.dropped]
  if (learned.sent) record.sent = learned.sent
  return redactDeep(record, request.secrets)
}
