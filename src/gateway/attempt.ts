/**
 * One attempt against one upstream target: the call made within the settings' timeouts, what was sent recorded,
 * and the answer judged once its headers arrived. It ends either with an answer that began (nothing of it has
 * reached the client yet) or with a failure before any byte reached the client: a connection that failed, an
 * error status, or a page that is not the API's (a proxy's HTML). A failure is a value, so whoever holds several
 * targets may try the next one.
 */
import type { IncomingHttpHeaders } from "node:http"
import { classifyHttpError, ProviderError } from "../providers/errors.js"
import type { ErrorInput } from "../providers/types.js"
import { GatewayError } from "./errors.js"
import type { RecordedBody } from "./outcome.js"
import { redactHeaders, redactUrl } from "./secrets.js"
import type { GatewaySettings } from "./settings.js"
import type { UpstreamTarget } from "./target.js"
import { type CancelSignal, callUpstream, readText, type UpstreamAnswer } from "./upstream.js"

/** Whether a content type is one an API answers with (JSON or server-sent events). */
function isApiContentType(type: string): boolean {
  return /application\/(.*\+)?json|text\/event-stream/i.test(type)
}

/** The call one target gets: its headers, and its body (bytes, and the value the record shows as sent). */
export interface UpstreamPayload {
  headers: Record<string, string>
  /** Absent: a GET. */
  body?: { bytes: Buffer | string; shown: unknown }
}

/** An answer that began: its headers arrived and it is the API's answer. */
export interface StartedAnswer {
  answer: UpstreamAnswer
  /** Its content type. */
  type: string
}

/** An attempt that failed before any byte reached the client. */
export interface AttemptFailure {
  /** The failure in promptline's terms (a GatewayError naming the upstream for a page that is not the API's). */
  error: ProviderError | GatewayError
  /** The upstream's own error answer in the API's shape (an error status with a JSON body), as it came. */
  own?: { status: number; headers: IncomingHttpHeaders; text: string }
}

/** How one attempt ended, with what was sent (absent when nothing could be). */
export type Attempt<Started> =
  | { ok: true; started: Started; sent: RecordedBody }
  | { ok: false; failure: AttemptFailure; sent?: RecordedBody }

/**
 * Calls one target and judges its answer. `expected` names what the API answers with, for the message about a
 * page that is not it; `headersTimeoutMs`, when given, bounds the wait for the answer's headers (a fallback waits).
 */
export async function callTarget(
  target: UpstreamTarget,
  payload: UpstreamPayload,
  settings: GatewaySettings,
  signal: CancelSignal,
  expected: "JSON" | "stream",
  headersTimeoutMs?: number,
): Promise<Attempt<StartedAnswer>> {
  const url = target.url!
  const headers = { ...payload.headers }
  if (payload.body) headers["content-length"] = String(Buffer.byteLength(payload.body.bytes))
  const sent = payload.body
    ? { url: redactUrl(url), headers: redactHeaders(headers), body: payload.body.shown }
    : undefined
  let answer: UpstreamAnswer
  try {
    answer = await callUpstream({
      url,
      method: payload.body ? "POST" : "GET",
      headers,
      ...(payload.body ? { body: payload.body.bytes } : {}),
      signal,
      connectTimeoutMs: settings.connectTimeoutMs,
      idleTimeoutMs: settings.idleTimeoutMs,
      ...(headersTimeoutMs !== undefined ? { headersTimeoutMs } : {}),
    })
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error
    const failure = { error }
    return sent ? { ok: false, failure, sent } : { ok: false, failure }
  }
  const type = String(answer.headers["content-type"] ?? "")
  if (answer.status < 400 && isApiContentType(type)) return { ok: true, started: { answer, type }, sent: sent! }
  const text = await readText(answer.body)
  const error = classifyHttpError({
    status: answer.status,
    body: text,
    headers: answer.headers as Record<string, string>,
  })
  const failure: AttemptFailure =
    answer.status >= 400 && isApiContentType(type) && text.trim() !== ""
      ? { error, own: { status: answer.status, headers: answer.headers, text } }
      : { error: notTheApi(target.upstream.name, answer.status, type, error, expected) }
  return sent ? { ok: false, failure, sent } : { ok: false, failure }
}

/**
 * An upstream answer that is not the API's (a proxy's HTML error page, a 2xx without JSON) as the client's error:
 * the upstream's status when it is an error status (else 502), its wait kept, and a short message naming the
 * upstream, the status and the content type, with the page's own words (its title) and never its markup or scripts.
 */
function notTheApi(
  upstream: string,
  status: number,
  type: string,
  failure: ProviderError,
  expected: "JSON" | "stream",
): GatewayError {
  const what = type === "" ? "a body without a content type" : type.split(";")[0]!.trim()
  // classifyHttpError already reduced a page to its words; what is left is kept short and on one line.
  const words = failure.message
    .replace(/^HTTP \d+:?\s*/, "")
    .replace(/[\s\u0000-\u001f\u007f]+/g, " ")
    .trim()
  const said = words === "" ? "" : `: ${words.length > 200 ? `${words.slice(0, 199)}…` : words}`
  const input: ErrorInput = {
    kind: status >= 400 ? failure.kind : "server",
    message: `the upstream ${upstream} answered HTTP ${status} with ${what}, not the API's ${expected}${said}`,
  }
  if (failure.retryAfterMs !== undefined) input.retryAfterMs = failure.retryAfterMs
  return new GatewayError(input, status >= 400 ? status : 502)
}
