/**
 * Keys and tokens at the gateway's edge: reading the key a client sent, checking the inbound token in constant
 * time, and redacting credentials from everything the gateway writes (logs, records, spans).
 */
import { createHash, timingSafeEqual } from "node:crypto"
import type { IncomingHttpHeaders } from "node:http"

/** The request headers that carry credentials, in any provider's style. */
export const CREDENTIAL_HEADERS: readonly string[] = [
  "authorization",
  "x-api-key",
  "x-goog-api-key",
  "proxy-authorization",
]

/** What stands where a credential was. */
export const REDACTED = "[redacted]"

const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value)

/** The key a client sent: `x-api-key`, `Authorization: Bearer …`, `x-goog-api-key`, or Gemini's `?key=`. */
export function clientKey(headers: IncomingHttpHeaders, query?: URLSearchParams): string | undefined {
  const bearer = /^Bearer\s+(.+)$/i.exec(first(headers.authorization) ?? "")?.[1]?.trim()
  const key =
    first(headers["x-api-key"]) ?? bearer ?? first(headers["x-goog-api-key"]) ?? query?.get("key") ?? undefined
  return key === undefined || key === "" ? undefined : key
}

const digest = (text: string) => createHash("sha256").update(text).digest()

/** Whether the client sent `token` (in any credential header), compared in constant time. */
export function hasToken(headers: IncomingHttpHeaders, query: URLSearchParams, token: string): boolean {
  const sent = clientKey(headers, query)
  // Equal-length digests: the comparison takes the same time whatever was sent.
  return timingSafeEqual(digest(sent ?? ""), digest(token)) && sent !== undefined
}

/** Headers as a plain record with credentials redacted (for records and traces). */
export function redactHeaders(headers: Record<string, string | string[] | number | undefined>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue
    out[name] = CREDENTIAL_HEADERS.includes(name.toLowerCase())
      ? REDACTED
      : Array.isArray(value)
        ? value.join(", ")
        : String(value)
  }
  return out
}

/** Text with every occurrence of each secret replaced (secrets shorter than 8 characters are left: too likely in prose). */
export function redactText(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text
  for (const secret of secrets) if (secret !== undefined && secret.length >= 8) out = out.split(secret).join(REDACTED)
  return out
}

/** A URL with its `key` query parameter (Gemini's key in the URL) redacted. */
export function redactUrl(url: string): string {
  return url.replace(/([?&]key=)[^&#]*/gi, `$1${REDACTED}`)
}
