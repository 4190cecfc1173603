/**
 * Credentials out of what is recorded: request headers (the replay server's log, the gateway's traces) and
 * URLs whose query carries a key (Gemini's `?key=`).
 */

const SECRET_HEADERS = new Set(["authorization", "proxy-authorization", "x-api-key", "x-goog-api-key", "api-key"])

/** Copies headers, replacing credentials with `[redacted]`. */
export function redactHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const key of Object.keys(headers).sort()) {
    const value = headers[key]
    if (value === undefined) continue
    out[key] = SECRET_HEADERS.has(key.toLowerCase()) ? "[redacted]" : Array.isArray(value) ? value.join(", ") : value
  }
  return out
}

/** A URL with the value of a `key` query parameter replaced by `[redacted]`. */
export function redactUrl(url: string): string {
  return url.replace(/([?&](?:key|api_key|api-key)=)[^&#]*/gi, "$1[redacted]")
}
