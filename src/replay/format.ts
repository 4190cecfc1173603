import type { ErrorInput } from "../providers/types.js"
import type { ResolvedTurn } from "./resolve.js"
import type { ReplayFormat, RequestView } from "./view.js"

/** Why the server answers with an error instead of a turn. */
export type FailureKind =
  | "invalid-request"
  | "not-found"
  | "rate-limit"
  | "server-error"
  | "overloaded"
  | "context-overflow"
  /** The request does not match what the script expects at this turn. */
  | "diverged"
  /** The script has no turn left. */
  | "exhausted"

/** An error answer, before it is put in a provider's shape. */
export interface Failure {
  kind: FailureKind
  message: string
  /** Seconds, for rate limits. */
  retryAfter?: number
  /** A machine-readable code where the provider has one (e.g. `previous_response_not_found`). */
  code?: string
  /** The request field at fault, when known. */
  param?: string
}

/** The replay's failures as the format modules' error kinds (a script that cannot go on is an invalid request). */
export const FAILURE_KINDS: Readonly<Record<FailureKind, ErrorInput["kind"]>> = {
  "invalid-request": "invalid-request",
  diverged: "invalid-request",
  exhausted: "invalid-request",
  "context-overflow": "context-overflow",
  "not-found": "not-found",
  "rate-limit": "rate-limit",
  "server-error": "server",
  overloaded: "overloaded",
}

/** An error answer in a provider's shape. */
export interface ErrorAnswer {
  status: number
  headers: Record<string, string>
  body: unknown
}

/** Everything a writer needs to render one turn. */
export interface TurnRender {
  turn: ResolvedTurn
  view: RequestView
  body: Record<string, unknown>
  /** Unix seconds stamped into `created` fields. */
  created: number
  /** Approximate characters per streamed delta. */
  chunkSize: number
}

/** One wire format as the replay server speaks it: reading requests, writing answers. */
export interface FormatHandler {
  format: ReplayFormat
  /** Prefix of generated tool-call ids. */
  callIdPrefix: string
  /** What makes the body malformed for this format; empty when it is fine. */
  check(body: Record<string, unknown>): string[]
  /**
   * Top-level body fields the format's current API does not define: accepted and ignored, as the real APIs pass
   * over what they do not use, and listed in the request's record.
   */
  unknownFields(body: Record<string, unknown>): string[]
  /** Reads a well-formed body; `names` maps call ids already answered to their tool names. */
  view(body: Record<string, unknown>, names: ReadonlyMap<string, string>, route: RouteInfo): RequestView
  /** The stream's event payloads, in order. */
  events(render: TurnRender): unknown[]
  /** The events framed as server-sent events, terminator included. */
  sse(events: readonly unknown[]): string[]
  /** Gemini: the streamed answer as one JSON array, written as the format module writes it (without `alt=sse`). */
  array?(render: TurnRender): string
  /** The whole answer of a request made without streaming. */
  complete(render: TurnRender): unknown
  /** An error in this provider's shape. */
  error(failure: Failure): ErrorAnswer
}

/** What the URL says about a request (Gemini puts the model and the streaming mode there). */
export interface RouteInfo {
  model?: string
  stream?: boolean
  /** Gemini: `alt=sse` was asked for (otherwise a stream is one JSON array). */
  sse?: boolean
}

/** The retry-after header of a rate-limit failure. */
export function retryHeaders(failure: Failure): Record<string, string> {
  return failure.kind === "rate-limit" ? { "retry-after": String(failure.retryAfter ?? 1) } : {}
}
