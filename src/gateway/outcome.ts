/**
 * The outcome of one request: what its client was answered (status, bytes, when the first byte left, the error it
 * was told), what the answer reported (usage, stop reason, failure) and what went upstream (the body sent, the
 * fields dropped). Each pipeline returns one; the record builder (record.ts) turns it into the request's record.
 * The answer's facts come from its stream events through `withEvents`, the one mapping every transport uses.
 */
import { isErrorLevel } from "../providers/completeness.js"
import type { StreamEvent } from "../providers/stream.js"
import type { RouteStep } from "./routing.js"

/** Token usage as the upstream reported it. */
export interface RecordUsage {
  input: number
  output: number
  cacheRead: number
  cacheWrite: number
}

/** A request as the client sent it or as it went upstream: URL, headers and body. */
export interface RecordedBody {
  url: string
  headers: Record<string, string>
  /** The parsed JSON body (or the text when it was not JSON). */
  body: unknown
}

/** A failure as the record keeps it. */
export interface OutcomeError {
  kind: string
  message: string
}

/** What an answer reported through its stream events. */
export interface AnswerFacts {
  /** The usage the upstream reported (its last report). */
  usage?: RecordUsage
  /** Why the answer stopped (`end`, `tool_use`, `length`, `error`, …). */
  stop?: string
  /** The answer's failure (a warning, such as tool arguments that are not JSON, leaves an answer whole). */
  error?: OutcomeError
}

/** Which facts a batch of events adds: all, the usage only, or the stop and failure only. */
export type FactParts = "all" | "usage" | "ending"

/**
 * `facts` with what `events` report added, the later event winning: the usage, why the answer stopped, and its
 * failure. `parts` narrows it (a translation takes the usage the upstream reported, and the stop and failure of
 * the answer its client was shown). Returns `facts` itself when the events add nothing.
 */
export function withEvents(facts: AnswerFacts, events: readonly StreamEvent[], parts: FactParts = "all"): AnswerFacts {
  let out = facts
  for (const e of events) {
    if (e.type === "usage" && parts !== "ending")
      out = { ...out, usage: { input: e.input, output: e.output, cacheRead: e.cacheRead, cacheWrite: e.cacheWrite } }
    else if (parts === "usage") continue
    else if (e.type === "stop") out = { ...out, stop: e.reason }
    else if (e.type === "error" && isErrorLevel(e))
      out = { ...out, error: { kind: e.kind ?? "server", message: e.message } }
  }
  return out
}

/** One upstream of a fallback chain as a request went through it. */
export interface RecordAttempt {
  /** The upstream's name in the config. */
  upstream: string
  /** The model asked of it. */
  model: string
  /** The status it answered with, when it answered (200 for the answer the client got). */
  status?: number
  /** Why the request moved on from it (an error kind), or why it was not asked (`circuit-open`, `window-too-small`). */
  error?: string
}

/**
 * Facts read when the record is built, once the turn the answer ended in is over: a same-format answer's copy is
 * decoded then, with the other records of that turn, rather than between answers.
 */
export type LateFacts = () => AnswerFacts

/** What a pipeline learned on its way: the answer's facts, and what it sent upstream. */
export interface PipelineResult {
  /**
   * A route with several upstreams: each one tried or passed over, in order, and the step that answered (absent:
   * the route's first upstream answered, or none did).
   */
  chain?: { attempts: readonly RecordAttempt[]; answered?: RouteStep }
  facts: AnswerFacts | LateFacts
  /** Request fields dropped when translating (JSON paths). */
  dropped: readonly string[]
  /** As sent upstream (not yet redacted); absent when nothing was sent. */
  sent?: RecordedBody
}

/** How the client's answer went, as its writer saw it. */
export interface ClientSide {
  /** The status sent (or, over a WebSocket, the status of the error event sent; 200 otherwise). */
  status: number
  /** Answer bytes written to the client. */
  bytes: number
  /** When the answer's first byte left. */
  firstByteAt?: number
  /** The error the client was told (in its own shape), when it was told one. */
  told?: OutcomeError
}

/** The outcome of one request. */
export interface Outcome extends ClientSide, PipelineResult {
  /** When the answer ended. */
  endedAt: number
}

/** No facts, nothing dropped, nothing sent: a request refused before its pipeline. */
export const NOTHING_LEARNED: PipelineResult = { facts: {}, dropped: [] }

/** The outcome of a request from its client side and what its pipeline learned, ended at `endedAt`. */
export function outcomeOf(client: ClientSide, learned: PipelineResult, endedAt: number): Outcome {
  return { ...client, ...learned, endedAt }
}
