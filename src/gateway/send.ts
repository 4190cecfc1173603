/**
 * Sending a request upstream for an exchange, both modes alike: the body's length set, what was sent recorded
 * (credentials redacted), the call made within the settings' timeouts, and an answer that is not the API's
 * (an error status, or a page that is neither JSON nor a stream) read and classified.
 */
import { classifyHttpError, type ProviderError } from "../providers/errors.js"
import type { ErrorInput } from "../providers/types.js"
import { GatewayError } from "./errors.js"
import type { RecordedBody } from "./record.js"
import { redactHeaders, redactUrl } from "./secrets.js"
import type { GatewaySettings } from "./settings.js"
import { callUpstream, readText, type UpstreamAnswer } from "./upstream.js"

/** Whether a content type is one an API answers with (JSON or server-sent events). */
export function isApiContentType(type: string): boolean {
  return /application\/(.*\+)?json|text\/event-stream/i.test(type)
}

/** What sending needs of a request's state: its cancellation, and where to record what was sent. */
export interface UpstreamCall {
  /** Aborted when the client goes away. */
  readonly abort: AbortController
  sent?: RecordedBody
}

/** An upstream answer; `failure` is set when it is not the API's answer (its text read, its error classified). */
export interface SentRequest {
  answer: UpstreamAnswer
  /** The answer's content type ("" when absent). */
  type: string
  failure?: { text: string; error: ProviderError }
}

/** Sends `payload` to `url` for `ex`; `body` is what the record shows as sent. */
export async function sendUpstream(
  ex: UpstreamCall,
  request: { url: string; headers: Record<string, string>; payload: Buffer | string; body: unknown },
  settings: GatewaySettings,
): Promise<SentRequest> {
  const { url, headers, payload } = request
  headers["content-length"] = String(Buffer.byteLength(payload))
  ex.sent = { url: redactUrl(url), headers: redactHeaders(headers), body: request.body }
  const answer = await callUpstream({
    url,
    method: "POST",
    headers,
    body: payload,
    signal: ex.abort.signal,
    connectTimeoutMs: settings.connectTimeoutMs,
    idleTimeoutMs: settings.idleTimeoutMs,
  })
  return { answer, ...(await judgeAnswer(answer)) }
}

/** An upstream answer's content type, and when it is not the API's answer its text read and its error classified. */
export async function judgeAnswer(answer: UpstreamAnswer): Promise<Omit<SentRequest, "answer">> {
  const type = String(answer.headers["content-type"] ?? "")
  if (answer.status < 400 && isApiContentType(type)) return { type }
  const text = await readText(answer.body)
  const error = classifyHttpError({
    status: answer.status,
    body: text,
    headers: answer.headers as Record<string, string>,
  })
  return { type, failure: { text, error } }
}

/**
 * An upstream answer that is not the API's (a proxy's HTML error page, a 2xx without JSON) as the client's error:
 * the upstream's status when it is an error status (else 502), its wait kept, and a short message naming the
 * upstream, the status and the content type, with the page's own words (its title) and never its markup or scripts.
 */
export function notTheApi(
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
