/**
 * The usage of one launch, summed from the gateway's request records as they finish: requests, tokens, the share of
 * prompt tokens read from the cache, and the cost at catalog prices. Printed as one line when the agent exits.
 */
import { costOf } from "../agent/figures.js"
import type { GatewayRecord } from "../gateway/record.js"
import { resolveModel } from "../models/resolve.js"
import type { ModelInfo } from "../models/types.js"

/** What a launch's requests added up to. */
export interface LaunchUsage {
  /** Requests routed to an upstream (the model requests). */
  requests: number
  /** Of those, the ones answered with an error status. */
  failed: number
  /** Calls answered by the gateway alone: refused (no token), probes (`HEAD /`), model lists, bad paths. */
  unrouted: number
  /** Prompt tokens neither read from nor written to the cache. */
  input: number
  output: number
  cacheRead: number
  cacheWrite: number
  /** US dollars of the requests whose model has catalog prices. */
  cost: number
  /** Requests with usage whose model has catalog prices (their cost is in `cost`). */
  priced: number
  /** Requests with usage whose model has no prices (their cost is not in `cost`). */
  unpriced: number
}

/** No requests yet. */
export const NO_USAGE: LaunchUsage = {
  requests: 0,
  failed: 0,
  unrouted: 0,
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  cost: 0,
  priced: 0,
  unpriced: 0,
}

/** The usage with one more finished call, priced as the model the upstream was asked for (user rows first). */
export function addRecord(usage: LaunchUsage, record: GatewayRecord, models: readonly ModelInfo[]): LaunchUsage {
  if (!record.upstream) return { ...usage, unrouted: usage.unrouted + 1 }
  const next = { ...usage, requests: usage.requests + 1, failed: usage.failed + (record.status >= 400 ? 1 : 0) }
  const used = record.usage
  if (!used) return next
  next.input += used.input
  next.output += used.output
  next.cacheRead += used.cacheRead
  next.cacheWrite += used.cacheWrite
  const { model, known } = resolveModel(record.upstream.model, { models })
  const cost = known ? costOf({ ...used }, model) : undefined
  if (cost === undefined) next.unpriced++
  else {
    next.priced++
    next.cost += cost
  }
  return next
}

const count = (n: number) => n.toLocaleString("en-US")
const plural = (n: number, word: string) => `${count(n)} ${word}${n === 1 ? "" : "s"}`

/**
 * The usage in words: `3 requests, 12,400 tokens in (81% from the cache), 560 out, $0.0123`, then the calls no
 * upstream saw, when there were any (`; 2 calls answered by the gateway alone (refused without the token, …)`).
 */
export function usageText(usage: LaunchUsage): string {
  const unrouted =
    usage.unrouted > 0
      ? `; ${plural(usage.unrouted, "call")} answered by the gateway alone (refused without the token, probes, model lists)`
      : ""
  if (usage.requests === 0) return `no model requests${unrouted}`
  const prompt = usage.input + usage.cacheRead + usage.cacheWrite
  const cached = prompt === 0 ? 0 : Math.round((100 * usage.cacheRead) / prompt)
  const parts = [
    `${plural(usage.requests, "request")}${usage.failed > 0 ? ` (${count(usage.failed)} failed)` : ""}`,
    `${count(prompt)} tokens in (${cached}% from the cache)`,
    `${count(usage.output)} out`,
  ]
  if (usage.priced > 0) parts.push(`$${usage.cost.toFixed(4)}`)
  if (usage.unpriced > 0) parts.push(`${plural(usage.unpriced, "request")} of a model without catalog prices`)
  return `${parts.join(", ")}${unrouted}`
}
