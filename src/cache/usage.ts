/**
 * Usage: requests, tokens, cached share, cost at catalog prices, errors and fallbacks, summed over requests. One
 * tally (`UsageTally`, O(1) per request) serves `promptline usage` over trace lines, the gateway's status page over
 * its records, and the one-line summary of a run.
 */
import { addCost, type Cost, type CostSum, emptyCostSum, type PriceList } from "../models/cost.js"
import type { TraceLine } from "./trace-types.js"

/** Token counts summed: prompt tokens not read from or written to the cache, read, written, and output. */
export interface UsageTokens {
  input: number
  cacheRead: number
  cacheWrite: number
  output: number
}

/** What a set of requests used and cost. */
export interface UsageTotals {
  requests: number
  /** Tokens the upstreams reported. */
  tokens: UsageTokens
  /** Prompt tokens read from the cache over all prompt tokens (0 to 1; 0 without prompt tokens). */
  cachedShare: number
  /** US dollars at catalog prices, input and output; requests of a model without prices are counted apart. */
  cost: CostSum
  /** Requests that failed (an error, or an error status). */
  errors: number
  /** Requests answered after falling back from one upstream to another (more than one attempt). */
  fallbacks: number
  /** Requests that succeeded without reporting usage: their tokens and cost are not in the sums. */
  unreported: number
}

/** The totals of no requests. */
export function noUsage(): UsageTotals {
  return {
    requests: 0,
    tokens: { input: 0, cacheRead: 0, cacheWrite: 0, output: 0 },
    cachedShare: 0,
    cost: emptyCostSum(),
    errors: 0,
    fallbacks: 0,
    unreported: 0,
  }
}

/** One request as the tally reads it. */
export interface UsageEntry {
  /** The model that answered, priced at catalog prices. */
  model: string
  /** Tokens as the upstream reported them; absent when it reported none. */
  usage?: { input: number; output: number; cacheRead: number; cacheWrite: number }
  failed: boolean
  fallback: boolean
}

/** Sums requests as they come; each `add` is a few additions and one memoized price lookup. */
export class UsageTally {
  #requests = 0
  readonly #tokens: UsageTokens = { input: 0, cacheRead: 0, cacheWrite: 0, output: 0 }
  readonly #cost = emptyCostSum()
  #errors = 0
  #fallbacks = 0
  #unreported = 0

  constructor(private readonly prices: PriceList) {}

  /** Adds one request; returns its cost (undefined when it reported no usage or its model has no price). */
  add(entry: UsageEntry): Cost | undefined {
    this.#requests++
    if (entry.failed) this.#errors++
    if (entry.fallback) this.#fallbacks++
    const usage = entry.usage
    if (!usage) {
      if (!entry.failed) this.#unreported++
      return undefined
    }
    this.#tokens.input += usage.input
    this.#tokens.cacheRead += usage.cacheRead
    this.#tokens.cacheWrite += usage.cacheWrite
    this.#tokens.output += usage.output
    const cost = this.prices.costOf(entry.model, usage)
    addCost(this.#cost, cost, entry.model)
    return cost
  }

  /** The sums so far (a copy). */
  totals(): UsageTotals {
    const t = this.#tokens
    const prompt = t.input + t.cacheRead + t.cacheWrite
    return {
      requests: this.#requests,
      tokens: { ...t },
      cachedShare: prompt > 0 ? t.cacheRead / prompt : 0,
      cost: { ...this.#cost, unpricedModels: [...this.#cost.unpricedModels] },
      errors: this.#errors,
      fallbacks: this.#fallbacks,
      unreported: this.#unreported,
    }
  }
}

/** A trace line as the tally reads it: failed with an error or an error status, a fallback with two attempts or more. */
export function usageEntryOfLine(line: TraceLine): UsageEntry {
  return {
    model: line.model,
    ...(line.usage ? { usage: line.usage } : {}),
    failed: line.error !== undefined || (line.status ?? 0) >= 400,
    fallback: (line.attempts?.length ?? 0) > 1,
  }
}
