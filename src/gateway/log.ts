/** The gateway's log line per request: one human line, or one JSON line. */
import { costText } from "../cache/usage-text.js"
import { type Cost, PriceList } from "../models/cost.js"
import type { GatewayRecord } from "./record.js"
import { pricedModel } from "./record-usage.js"

/** The catalog's prices, for a log line whose caller passes none (the user's model rows are the caller's to pass). */
const CATALOG_PRICES = new PriceList()

/**
 * What a request cost at catalog prices: dollars, `null` when its model has no price, undefined when it reported no
 * usage (nothing to price).
 */
export function recordCost(record: GatewayRecord, prices: PriceList = CATALOG_PRICES): Cost | null | undefined {
  if (!record.usage) return undefined
  return prices.costOf(pricedModel(record), record.usage) ?? null
}

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

/**
 * One line: time, client API → upstream, model, tokens, cache read share, cost at catalog prices (`$?` without a
 * price), latency (and the error, if any), and the upstreams tried when the request fell back (`attempts: …`).
 */
export function logLine(record: GatewayRecord, prices: PriceList = CATALOG_PRICES): string {
  const time = new Date(record.startedAt).toISOString().slice(11, 23)
  const to = record.upstream ? `${logField(record.upstream.name)} (${record.upstream.format})` : "-"
  const model =
    record.upstream && record.upstream.model !== record.model
      ? `${logField(record.model)} → ${logField(record.upstream.model)}`
      : logField(record.model)
  const u = record.usage
  const share = cacheReadShare(record)
  const tokens = u
    ? `in ${n(u.input + u.cacheRead + u.cacheWrite)} out ${n(u.output)} cached ${Math.round((share ?? 0) * 100)}% ${costText(recordCost(record, prices) ?? undefined)}`
    : "no usage"
  const outcome = record.error
    ? ` ${record.status} ${record.error.kind}: ${logField(record.error.message, 1000)}`
    : ` ${record.status}`
  const chain =
    record.attempts && record.attempts.length > 1
      ? ` attempts: ${record.attempts.map((a) => `${logField(a.upstream)}/${logField(a.model)} ${a.error ?? a.status ?? "-"}`).join(", ")}`
      : ""
  return `${time} ${record.clientFormat} → ${to} ${model} ${tokens} ${n(Math.round(record.latencyMs))} ms${outcome}${chain}`
}

/**
 * The JSON line of a record: the log fields, without the request bodies, and `cost` (US dollars at catalog prices:
 * `{ input, output, total }`, `null` when the model has no price, absent without usage).
 */
export function logJson(record: GatewayRecord, prices: PriceList = CATALOG_PRICES): string {
  const { received: _r, sent: _s, ...fields } = record
  const cost = recordCost(record, prices)
  return JSON.stringify({
    time: new Date(record.startedAt).toISOString(),
    ...fields,
    cacheReadShare: cacheReadShare(record),
    ...(cost !== undefined ? { cost } : {}),
  })
}
