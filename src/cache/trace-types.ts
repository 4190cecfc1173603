/**
 * The trace types in one place: what a caller reports for one request (`TraceInput`) and the line the trace store
 * writes for it (`TraceLine`, read by `promptline traces` and `inspect --trace`). Both extend `TraceFacts`, the
 * facts a line keeps as reported.
 */
import type { WireFormat } from "../models/types.js"
import type { Usage } from "../providers/stream.js"
import type { CacheVerdict } from "./explain.js"

/** What a request's trace keeps as the caller reported it: timing, APIs, model, usage, outcome. */
export interface TraceFacts {
  /** When the request arrived (milliseconds; the clock is the caller's). */
  at: number
  durationMs?: number
  /** Milliseconds until the first byte of the answer. */
  firstByteMs?: number
  /** The API the client spoke. */
  clientApi: string
  /**
   * Where the request went: its wire format, the upstream's name in the gateway's config, and the provider or URL
   * (credentials redacted in a line).
   */
  upstream: { format: WireFormat; name?: string; provider?: string; url?: string }
  model: string
  usage?: Usage
  status?: number
  error?: string
  /**
   * Every upstream tried, in order, when the request fell back from one to the next (the last one gave the answer);
   * absent when the first upstream answered. A request with more than one attempt counts as a fallback.
   */
  attempts?: TraceAttempt[]
}

/** One upstream a request was sent to, in a fallback chain. */
export interface TraceAttempt {
  /** The upstream's name in the gateway's config (or its provider). */
  upstream: string
  /** The model asked of it. */
  model: string
  /** The status it answered, when it answered. */
  status?: number
  /** Why the request moved on from it. */
  error?: string
}

/** One HTTP exchange side as the caller has it: headers and body. */
export interface TracedMessage {
  headers?: Record<string, string | string[] | undefined>
  body: unknown
  url?: string
}

/** One exchange side as a line stores it: redacted URL and headers, the body as a stored skeleton. */
export interface StoredMessage {
  url?: string
  headers?: Record<string, string>
  body: unknown
}

/** What a caller records for one request. */
export interface TraceInput extends TraceFacts {
  /** An explicit conversation id (a header or session id). */
  conversation?: string
  /** The request as the client sent it, when it differs from what went upstream. */
  received?: TracedMessage
  /** The request as sent upstream (the body the cache is explained on). */
  sent: TracedMessage
}

/** One request of a trace: the facts as reported, its place in its conversation, the stored bodies, the verdict. */
export interface TraceLine extends TraceFacts {
  v: 1
  /** 1-based position in the conversation. */
  n: number
  conversation: string
  /** The group the conversation was matched within: its first user message, and the session id the body carries. */
  group?: string
  /** The first-user-message key of lines written before groups (read as `group`). */
  loose?: string
  received?: StoredMessage
  sent: StoredMessage
  verdict: CacheVerdict
}
