/** The gateway's log line per request: one human line, or one JSON line. */
import type { GatewayRecord } from "./record.js"

const n = (x: number) => x.toLocaleString("en-US")

/** The share of prompt tokens read from the cache, 0 to 1 (undefined without usage). */
export function cacheReadShare(record: GatewayRecord): number | undefined {
  const u = record.usage
  if (!u) return undefined
  const prompt = u.input + u.cacheRead + u.cacheWrite
  return prompt === 0 ? 0 : u.cacheRead / prompt
}

/**
 * A value from the request (a model name, an error message) as one field of the line: whitespace runs and control
 * characters become one space, so a client's text cannot break or forge lines; at most `max` characters; `-` when
 * there is nothing to show (the body could not be read, so no model is known).
 */
export function logField(text: string | undefined, max = 200): string {
  const flat = (text ?? "").replace(/[\s\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, " ").trim()
  if (flat === "") return "-"
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}

/** One line: time, client API → upstream, model, tokens, cache read share, latency (and the error, if any). */
export function logLine(record: GatewayRecord): string {
  const time = new Date(record.startedAt).toISOString().slice(11, 23)
  const to = record.upstream ? `${logField(record.upstream.name)} (${record.upstream.format})` : "-"
  const model =
    record.upstream && record.upstream.model !== record.model
      ? `${logField(record.model)} → ${logField(record.upstream.model)}`
      : logField(record.model)
  const u = record.usage
  const share = cacheReadShare(record)
  const tokens = u
    ? `in ${n(u.input + u.cacheRead + u.cacheWrite)} out ${n(u.output)} cached ${Math.round((share ?? 0) * 100)}%`
    : "no usage"
  const outcome = record.error
    ? ` ${record.status} ${record.error.kind}: ${logField(record.error.message, 1000)}`
    : ` ${record.status}`
  return `${time} ${record.clientFormat} → ${to} ${model} ${tokens} ${n(Math.round(record.latencyMs))} ms${outcome}`
}

/** The JSON line of a record: the log fields, without the request bodies. */
export function logJson(record: GatewayRecord): string {
  const { received: _r, sent: _s, ...fields } = record
  return JSON.stringify({
    time: new Date(record.startedAt).toISOString(),
    ...fields,
    cacheReadShare: cacheReadShare(record),
  })
}
