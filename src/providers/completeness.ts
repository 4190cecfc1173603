/**
 * What `complete` means, once for every wire format. A response is complete when the format's
 * completeness rule held (the provider's terminator arrived, with what the rule requires before it:
 * each decoder exports its rule as a `CompletenessRule`), no error-level error was reported, and the
 * stop reason is not `error`. Every decoder ends a response through `closeResponse`, so stop reason,
 * errors and completeness always agree:
 *
 * - complete ⇒ no error-level error and a stop reason other than `error`;
 * - incomplete ⇒ stop reason `error` and at least one error-level error saying why.
 */

import type { ProviderErrorKind } from "./errors.js"
import type { StopReason, StreamErrorEvent, StreamErrorKind, StreamEvent, Usage } from "./stream.js"

/**
 * Error kinds that do not make a response incomplete: arguments that are not JSON (the call still
 * ends, with `{}`), a payload that was skipped, and a call cut off inside a response the provider
 * ended normally (the XML dialect's unfinished call). A decoder reports a call cut off by truncation
 * or a failure next to the error-level error that cut it.
 */
export const WARNING_KINDS: ReadonlySet<StreamErrorKind> = new Set(["invalid-arguments", "malformed", "partial-call"])

/** True for an error that makes its response incomplete (see WARNING_KINDS for the others). */
export function isErrorLevel(error: StreamErrorEvent): boolean {
  return !WARNING_KINDS.has(error.kind ?? "server")
}

/** One format's completeness rule, as data for docs and tests: what must arrive before a response is complete. */
export interface CompletenessRule {
  /** The payload that ends a response. */
  terminator: string
  /** What must have arrived before (or with) the terminator. */
  requires: readonly string[]
  /** What the rule does not need (a later payload that may be missing without loss). */
  optional?: readonly string[]
}

/** A provider stop reason that stands for a failure: the kind of error it is and what it means. */
export interface StopFailure {
  kind: ProviderErrorKind
  /** Our explanation, used when the provider gives no message of its own. */
  meaning: string
}

/** How a response ended, as a decoder's completeness rule judged it. */
export interface ResponseOutcome {
  /** What the format's rule still lacked (for example `message_stop`); undefined when the rule held. */
  missing?: string
  /** The payload that ended the response although the rule did not hold (`message_stop`, `[DONE]`); default: the end of the body. */
  endedBy?: string
  /** An error-level error was already reported for this response (an error payload, a failed response, a network failure). */
  failed: boolean
  /** The provider's stop reason, mapped; `message` is the provider's explanation when it gave one. */
  stop?: { reason: StopReason; raw?: string; message?: string }
  /** For a stop that maps to `error`: the error that says why, with the provider's code and message. */
  stopError?: StreamErrorEvent
  /** The final usage, when the provider reported any. */
  usage?: Usage
}

/**
 * Emits the last events of a response (the error that explains an incomplete one, usage, stop) so
 * that stop reason, errors and completeness agree. Returns whether the response is complete.
 */
export function closeResponse(out: StreamEvent[], outcome: ResponseOutcome): boolean {
  const { missing, failed, stop } = outcome
  let complete = missing === undefined && !failed
  if (missing !== undefined && !failed) {
    const message = outcome.endedBy
      ? `${outcome.endedBy} arrived without ${missing}`
      : `the stream ended before ${missing}`
    out.push({ type: "error", kind: "truncated", message })
  } else if (complete && stop?.reason === "error") {
    out.push(
      outcome.stopError ?? {
        type: "error",
        kind: "server",
        message: `the provider stopped with ${stop.raw ?? "an error"} and gave no explanation`,
      },
    )
    complete = false
  }
  if (outcome.usage) out.push({ type: "usage", ...outcome.usage })
  const ev: Extract<StreamEvent, { type: "stop" }> = {
    type: "stop",
    reason: complete ? (stop?.reason ?? "end") : "error",
  }
  if (stop?.raw !== undefined) ev.raw = stop.raw
  if (complete && stop?.message) ev.message = stop.message
  out.push(ev)
  return complete
}

/** The error for a provider stop reason that stands for a failure: `<code>: <provider message or our meaning>`. */
export function stopFailureError(code: string, failure: StopFailure, providerMessage?: string): StreamErrorEvent {
  return { type: "error", kind: failure.kind, message: `${code}: ${providerMessage || failure.meaning}` }
}
