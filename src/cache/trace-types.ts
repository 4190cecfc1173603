/** The shape of one trace line, as written by the trace store and read by `promptline traces` and `inspect --trace`. */
import type { WireFormat } from "../models/types.js"
import type { Usage } from "../providers/stream.js"
import type { CacheVerdict } from "./explain.js"

/** One request of a trace: timing, APIs, the request as received and as sent (bodies as stored skeletons), usage, verdict. */
export interface TraceLine {
  v: 1
  /** 1-based position in the conversation. */
  n: number
  at: number
  durationMs?: number
  firstByteMs?: number
  clientApi: string
  upstream: { format: WireFormat; provider?: string; url?: string }
  model: string
  conversation: string
  /** The group the conversation was matched within: its first user message, and the session id the body carries. */
  group?: string
  /** The first-user-message key of lines written before groups (read as `group`). */
  loose?: string
  received?: { url?: string; headers?: Record<string, string>; body: unknown }
  sent: { url?: string; headers?: Record<string, string>; body: unknown }
  usage?: Usage
  status?: number
  error?: string
  verdict: CacheVerdict
}
