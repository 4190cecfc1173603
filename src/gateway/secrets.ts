/**
 * Keys and tokens at the gateway's edge: reading the key a client sent, checking the inbound token in constant
 * time, and redacting credentials from everything the gateway writes: the record (and so the log line, the span
 * and the traces made of it) and the errors a client is told. Every credential an exchange holds is redacted
 * there, the client's own key included; an answer that succeeded is forwarded as the model wrote it, less a key
 * of the gateway's own (`keyEnv`), which no client may learn.
 */
import { createHash, timingSafeEqual } from "node:crypto"
import type { IncomingHttpHeaders } from "node:http"
import type { StreamEvent } from "../providers/stream.js"
import { REDACTED, redactDeep, redactText, usableSecrets } from "../redact.js"

/** The request headers that carry credentials, in any provider's style. */
export const CREDENTIAL_HEADERS: ReadonlySet<string> = new Set([
  "authorization",
  "x-api-key",
  "x-goog-api-key",
  "proxy-authorization",
])

export { REDACTED, redactDeep, redactText } from "../redact.js"

const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value)

/** The key a client sent: `x-api-key`, `Authorization: Bearer …`, `x-goog-api-key`, or Gemini's `?key=`. */
export function clientKey(headers: IncomingHttpHeaders, query?: URLSearchParams): string | undefined {
  const bearer = /^Bearer\s+(.+)$/i.exec(first(headers.authorization) ?? "")?.[1]?.trim()
  const key =
    first(headers["x-api-key"]) ?? bearer ?? first(headers["x-goog-api-key"]) ?? query?.get("key") ?? undefined
  return key === undefined || key === "" ? undefined : key
}

/**
 * Every secret one request holds, in one list: the client's credential, the gateway's inbound token and the
 * upstream's key (when decided). The record and every error the client is told are redacted of all of them.
 */
export function requestSecrets(
  clientKey: string | undefined,
  token: string | undefined,
  upstreamKey?: string,
): (string | undefined)[] {
  return [clientKey, token, upstreamKey]
}

const digest = (text: string) => createHash("sha256").update(text).digest()

/** Whether the client sent `token` (in any credential header), compared in constant time. */
export function hasToken(headers: IncomingHttpHeaders, query: URLSearchParams, token: string): boolean {
  return isToken(clientKey(headers, query), token)
}

/** Whether the key a client sent (clientKey) is `token`, compared in constant time. */
export function isToken(sent: string | undefined, token: string): boolean {
  // Equal-length digests: the comparison takes the same time whatever was sent.
  return timingSafeEqual(digest(sent ?? ""), digest(token)) && sent !== undefined
}

/** Headers as a plain record with credentials redacted (for records and traces). */
export function redactHeaders(headers: Record<string, string | string[] | number | undefined>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue
    out[name] = CREDENTIAL_HEADERS.has(name.toLowerCase())
      ? REDACTED
      : Array.isArray(value)
        ? value.join(", ")
        : String(value)
  }
  return out
}

/** Stream events with every secret redacted from the errors and stops among them (what a client is told went wrong). */
export function redactEvents(events: StreamEvent[], secrets: readonly (string | undefined)[]): StreamEvent[] {
  if (usableSecrets(secrets).length === 0) return events
  return events.map((e) => (e.type === "error" || e.type === "stop" ? redactDeep(e, secrets) : e))
}

/** What a redactor holds back when it holds nothing, and the mark it writes for a secret: shared, never written to. */
const NOTHING_HELD = Buffer.alloc(0)
const REDACTED_BYTES = Buffer.from(REDACTED)

/**
 * Redacts secrets from bytes relayed as they come, cut anywhere: a chunk's tail that could begin a secret is held
 * until the next chunk tells (an answer's chunks end in a line break, so nothing is held in practice).
 */
export class StreamRedactor {
  readonly #secrets: Buffer[]
  #held: Buffer = NOTHING_HELD

  constructor(secrets: readonly (string | undefined)[]) {
    this.#secrets = usableSecrets(secrets).map((s) => Buffer.from(s))
  }

  /** The bytes of `chunk` (after what was held) that may go out now, secrets redacted. */
  push(chunk: Buffer): Buffer {
    if (this.#secrets.length === 0) return chunk
    let data = this.#held.length > 0 ? Buffer.concat([this.#held, chunk]) : chunk
    for (const secret of this.#secrets) data = this.#replace(data, secret)
    const keep = this.#tail(data)
    this.#held = Buffer.from(data.subarray(data.length - keep))
    return data.subarray(0, data.length - keep)
  }

  /** What was held back, at the end of the stream. */
  end(): Buffer {
    const rest = this.#held
    this.#held = NOTHING_HELD
    return rest
  }

  #replace(data: Buffer, secret: Buffer): Buffer {
    let at = data.indexOf(secret)
    if (at < 0) return data
    const parts: Buffer[] = []
    let from = 0
    for (; at >= 0; at = data.indexOf(secret, from)) {
      parts.push(data.subarray(from, at), REDACTED_BYTES)
      from = at + secret.length
    }
    parts.push(data.subarray(from))
    return Buffer.concat(parts)
  }

  /** The length of the longest end of `data` that is the start of a secret (and not a whole one). */
  #tail(data: Buffer): number {
    let keep = 0
    for (const secret of this.#secrets)
      for (let k = Math.min(secret.length - 1, data.length); k > keep; k--)
        if (data[data.length - k] === secret[0] && data.subarray(data.length - k).equals(secret.subarray(0, k))) {
          keep = k
          break
        }
    return keep
  }
}

/**
 * A relayed WebSocket message: an error or a failed response with every secret redacted; any other with only the
 * `hidden` ones (the gateway's own key), the rest as it came.
 */
export function redactErrorFrame(
  payload: string,
  secrets: readonly (string | undefined)[],
  hidden: readonly (string | undefined)[] = [],
): string {
  const found = usableSecrets([...secrets, ...hidden]).filter((s) => payload.includes(s))
  if (found.length === 0) return payload
  let type: unknown
  try {
    type = (JSON.parse(payload) as { type?: unknown } | null)?.type
  } catch {
    // Not JSON: no answer of the model's, so nothing to keep as it came.
  }
  return type === undefined || type === "error" || type === "response.failed" || type === "response.incomplete"
    ? redactText(payload, found)
    : redactText(payload, hidden)
}

/** A URL with its `key` query parameter (Gemini's key in the URL) redacted. */
export function redactUrl(url: string): string {
  return url.replace(/([?&]key=)[^&#]*/gi, `$1${REDACTED}`)
}
