/**
 * Sending a request upstream for an exchange, both modes alike: the body's length set, what was sent recorded
 * (credentials redacted), the call made within the settings' timeouts, and an answer that is not the API's
 * (an error status, or a page that is neither JSON nor a stream) read and classified.
 */
import { classifyHttpError, type ProviderError } from "../providers/errors.js"
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
  const type = String(answer.headers["content-type"] ?? "")
  if (answer.status < 400 && isApiContentType(type)) return { answer, type }
  const text = await readText(answer.body)
  const error = classifyHttpError({
    status: answer.status,
    body: text,
    headers: answer.headers as Record<string, string>,
  })
  return { answer, type, failure: { text, error } }
}
