/**
 * The record of one request through the gateway, handed to the `onRequest` hook once the answer ended: what
 * the cache explainer, traces and the log line are made of. Credentials are redacted before a record exists.
 */
import { createHash } from "node:crypto"
import type { IncomingHttpHeaders } from "node:http"
import type { WireFormat } from "../models/types.js"
import type { SpokenFormat } from "../providers/formats.js"
import type { DecodedRequest } from "../providers/types.js"
import type { GatewayMode } from "./routing.js"

/** The header a client (or a load balancer) sets to name its conversation. */
export const CONVERSATION_HEADER = "x-promptline-conversation"

/** The header that names the request fields dropped when translating. */
export const DROPPED_HEADER = "x-promptline-dropped"

/** Token usage as the upstream reported it. */
export interface RecordUsage {
  input: number
  output: number
  cacheRead: number
  cacheWrite: number
}

/** A request body with its headers, credentials redacted. */
export interface RecordedBody {
  url: string
  headers: Record<string, string>
  /** The parsed JSON body (or the text when it was not JSON). */
  body: unknown
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
  usage?: RecordUsage
  /** Why the answer stopped (`end`, `tool_use`, `length`, `error`, …) when it was decoded. */
  stop?: string
  /** The failure, when the request failed. */
  error?: { kind: string; message: string }
  /** Request fields dropped when translating (JSON paths). */
  dropped: string[]
  /**
   * From the `x-promptline-conversation` header, else a hash of the system prompt's start, the tool names and the
   * first user message.
   */
  conversationKey: string
  received: RecordedBody
  /** As sent upstream; absent when nothing was sent. */
  sent?: RecordedBody
}

const short = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 16)

/**
 * Characters of the system prompt a conversation is known by: its start, which agents keep fixed for a session
 * while the end changes (a date, a git status, the working folder, a reminder).
 */
const SYSTEM_START = 1000

/**
 * The conversation a request belongs to: the client's header when set, else a hash of what stays fixed for a
 * conversation while a side call (its own system prompt or tools) differs: the system prompt's first 1,000
 * characters, the tool names in sorted order, and the first user message. Undefined when neither is known.
 */
export function conversationKey(headers: IncomingHttpHeaders, decoded: DecodedRequest | undefined): string | undefined {
  const given = headers[CONVERSATION_HEADER]
  const named = Array.isArray(given) ? given[0] : given
  if (named !== undefined && named.trim() !== "") return named.trim().slice(0, 200)
  if (!decoded) return undefined
  const firstUser = decoded.messages.find((m) => m.role === "user")
  const tools = decoded.prompt.tools.map((t) => t.name).sort()
  return short(JSON.stringify([decoded.prompt.text.slice(0, SYSTEM_START), tools, firstUser?.content ?? null]))
}
