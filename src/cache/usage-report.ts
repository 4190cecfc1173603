/**
 * `promptline usage`: the usage of a trace folder, read line by line, in total and by day, model, client API,
 * upstream or conversation, from a given time on.
 */
import type { Diagnostic } from "../diagnostics.js"
import { PriceList } from "../models/cost.js"
import type { ModelInfo } from "../models/types.js"
import { scanTraces } from "./trace-read.js"
import { noUsage, UsageTally, type UsageTotals, usageEntryOfLine } from "./usage.js"
import { type UsageGrouping, usageGroupOf } from "./usage-grouping.js"

/** The usage of one group. */
export interface UsageGroup extends UsageTotals {
  /** The day (YYYY-MM-DD, UTC), model, client API, upstream or conversation key. */
  key: string
}

/** The usage of a trace folder (`promptline usage --json` prints it). */
export interface UsageReport {
  v: 1
  dir: string
  /** Requests before this time (ISO 8601) are left out, when asked. */
  since?: string
  by?: UsageGrouping
  total: UsageTotals
  /** By `by`: days in order, anything else by cost, then requests, most first. */
  groups: UsageGroup[]
  /** Lines that are not trace lines and files that could not be read, each left out. */
  diagnostics: Diagnostic[]
}

/** Options of `usageReport`. */
export interface UsageReportOptions {
  by?: UsageGrouping
  /** Milliseconds since the epoch: requests that arrived earlier are left out. */
  since?: number
  /** The user's model rows (prices of models the catalog does not know). */
  models?: readonly ModelInfo[]
}

/** The report of a folder with nothing in it. */
export function emptyUsageReport(dir: string, options: Omit<UsageReportOptions, "models"> = {}): UsageReport {
  return {
    v: 1,
    dir,
    ...(options.since !== undefined ? { since: new Date(options.since).toISOString() } : {}),
    ...(options.by ? { by: options.by } : {}),
    total: noUsage(),
    groups: [],
    diagnostics: [],
  }
}

/** Code-unit order: the same on every machine, whatever its locale. */
const byKey = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/** Reads a trace folder's lines one at a time and sums their usage. */
export async function usageReport(dir: string, options: UsageReportOptions = {}): Promise<UsageReport> {
  const prices = new PriceList(options.models ?? [])
  const total = new UsageTally(prices)
  const groups = new Map<string, UsageTally>()
  const diagnostics: Diagnostic[] = []
  for await (const { entry } of scanTraces(dir, (d) => diagnostics.push(d))) {
    if (options.since !== undefined && entry.at < options.since) continue
    const usage = usageEntryOfLine(entry)
    total.add(usage)
    if (!options.by) continue
    const key = usageGroupOf(entry, options.by)
    let group = groups.get(key)
    if (!group) {
      group = new UsageTally(prices)
      groups.set(key, group)
    }
    group.add(usage)
  }
  const listed = [...groups].map(([key, tally]): UsageGroup => ({ key, ...tally.totals() }))
  listed.sort(
    options.by === "day"
      ? (a, b) => byKey(a.key, b.key)
      : (a, b) => b.cost.total - a.cost.total || b.requests - a.requests || byKey(a.key, b.key),
  )
  return { ...emptyUsageReport(dir, options), total: total.totals(), groups: listed, diagnostics }
}
