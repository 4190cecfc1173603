/**
 * Credentials out of what is recorded or told: request headers (the replay server's log, the gateway's traces),
 * URLs whose query carries a key (Gemini's `?key=`), and known secrets wherever they appear in a text or value
 * (an upstream's error quoting the key it was sent).
 */

const SECRET_HEADERS = new Set(["authorization", "proxy-authorization", "x-api-key", "x-goog-api-key", "api-key"])

/** What stands where a credential was. */
export const REDACTED = "[redacted]"

/** Copies headers, replacing credentials with `[redacted]`. */
export function redactHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const key of Object.keys(headers).sort()) {
    const value = headers[key]
    if (value === undefined) continue
    out[key] = SECRET_HEADERS.has(key.toLowerCase()) ? REDACTED : Array.isArray(value) ? value.join(", ") : value
  }
  return out
}

/** A URL with the value of a `key` query parameter replaced by `[redacted]`. */
export function redactUrl(url: string): string {
  return url.replace(/([?&](?:key|api_key|api-key)=)[^&#]*/gi, "$1[redacted]")
}

/** A URL with the user name and password before its host (`redis://user:password@host`) replaced by `[redacted]`. */
export function redactUrlCredentials(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#\s]*@/i, "$1[redacted]@")
}

/** The secrets worth looking for: defined, at least 8 characters (a shorter one is too likely in prose), once each. */
export function usableSecrets(secrets: readonly (string | undefined)[]): string[] {
  return [...new Set(secrets.filter((s): s is string => s !== undefined && s.length >= 8))]
}

/** Text with every occurrence of each secret replaced (secrets shorter than 8 characters are left: too likely in prose). */
export function redactText(text: string, secrets: readonly (string | undefined)[]): string {
  return replaceEach(text, usableSecrets(secrets))
}

/** `text` with every occurrence of each of `secrets` (usable ones) replaced. */
function replaceEach(text: string, secrets: readonly string[]): string {
  let out = text
  for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED)
  return out
}

/**
 * A JSON-like value (a record, a body) with every secret redacted from each string in it, names and values
 * alike. What holds no secret is shared, not copied: a value without any is returned as it is. Runs on every
 * record, over bodies of hundreds of kilobytes: nothing is allocated for what holds no secret, and a string
 * shorter than the shortest secret is not searched.
 */
export function redactDeep<T>(value: T, secrets: readonly (string | undefined)[]): T {
  const wanted = usableSecrets(secrets)
  if (wanted.length === 0) return value
  const shortest = Math.min(...wanted.map((s) => s.length))
  const text = (s: string) => (s.length < shortest ? s : replaceEach(s, wanted))
  // An object met twice (a body received and sent unchanged) is walked once: objects of a few keys are not kept
  // (keeping each costs more than walking it again), larger ones are.
  const done = new Map<object, unknown>()
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return text(v)
    if (v === null || typeof v !== "object") return v
    const seen = done.get(v)
    if (seen !== undefined) return seen
    if (Array.isArray(v)) {
      const out = walkArray(v)
      done.set(v, out)
      return out
    }
    const keys = Object.keys(v)
    const out = walkObject(v as Record<string, unknown>, keys)
    if (keys.length > 3) done.set(v, out)
    return out
  }
  const walkArray = (v: unknown[]): unknown => {
    let copy: unknown[] | undefined
    for (let i = 0; i < v.length; i++) {
      const item = walk(v[i])
      if (item === v[i]) continue
      copy ??= v.slice()
      copy[i] = item
    }
    return copy ?? v
  }
  const walkObject = (object: Record<string, unknown>, keys: readonly string[]): unknown => {
    let copy: Record<string, unknown> | undefined
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!
      const key = text(k)
      const item = walk(object[k])
      if (copy === undefined && key === k && item === object[k]) continue
      if (copy === undefined) {
        // The first change: the entries before it are copied as they are, in their order.
        copy = {}
        for (let j = 0; j < i; j++) put(copy, keys[j]!, object[keys[j]!])
      }
      put(copy, key, item)
    }
    return copy ?? object
  }
  return walk(value) as T
}

/** Sets a property of a copy, `__proto__` included as an own property (as JSON.parse makes it), never as the prototype. */
function put(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__")
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
  else target[key] = value
}

/** The credentials a set of request headers carries: each credential header's value, a bearer token without its scheme. */
export function credentialsOf(headers: Readonly<Record<string, string>>): string[] {
  const out: string[] = []
  for (const [name, value] of Object.entries(headers))
    if (SECRET_HEADERS.has(name.toLowerCase())) out.push(value.replace(/^(Bearer|Basic)\s+/i, ""), value)
  return out
}
