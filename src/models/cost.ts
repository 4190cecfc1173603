/**
 * What requests cost at catalog prices: the one cost function (`requestCost`) that `traces`, `usage`, the gateway's
 * log line and status page and the agent's figures all use, its sum over many requests (`CostSum`), and the prices
 * of a model id looked up once (`PriceList`). A model without catalog prices has no cost: it is marked, never
 * counted as zero.
 */
import { setBounded } from "../bounded-map.js"
import { resolveModel } from "./resolve.js"
import type { ModelInfo, Prices } from "./types.js"

/** US dollars one request cost: its prompt (uncached input, cache reads, cache writes), its output, and both. */
export interface Cost {
  input: number
  output: number
  total: number
}

/** The cost of many requests, and those left out of it because their model has no catalog price. */
export interface CostSum extends Cost {
  /** Requests in the sums above. */
  priced: number
  /** Requests with tokens whose model has no price: not in the sums above. */
  unpriced: number
  /** The models of those requests, sorted. */
  unpricedModels: string[]
}

/** Token counts as a provider reports them (`input` excludes cache reads and writes). */
interface BilledTokens {
  input: number
  output: number
  cacheRead: number
  cacheWrite: number
}

/**
 * The cost of one request's tokens at `prices` (US dollars per million tokens); undefined without prices. Cache
 * reads and writes are priced at their own rates (the input price where the row has none; writes at the default
 * lifetime's rate), and a request whose prompt exceeds the long-context threshold at the long rates, as providers
 * bill it.
 */
export function requestCost(tokens: BilledTokens, prices: Prices | undefined): Cost | undefined {
  if (!prices) return undefined
  const prompt = tokens.input + tokens.cacheRead + tokens.cacheWrite
  const long = prices.longContext && prompt > prices.longContext.above ? prices.longContext : undefined
  const inputRate = long?.input ?? prices.input
  const input =
    (tokens.input * inputRate +
      tokens.cacheRead * (long?.cacheRead ?? prices.cacheRead ?? inputRate) +
      tokens.cacheWrite * (long?.cacheWrite ?? prices.cacheWrite ?? inputRate)) /
    1_000_000
  const output = (tokens.output * (long?.output ?? prices.output)) / 1_000_000
  return { input, output, total: input + output }
}

/** A sum with nothing in it. */
export function emptyCostSum(): CostSum {
  return { input: 0, output: 0, total: 0, priced: 0, unpriced: 0, unpricedModels: [] }
}

/**
 * Adds one request's cost to `sum` in place: its dollars, or, when `cost` is undefined (no price for `model`), one
 * more unpriced request and its model among the unpriced ones.
 */
export function addCost(sum: CostSum, cost: Cost | undefined, model: string): void {
  if (cost) {
    sum.input += cost.input
    sum.output += cost.output
    sum.total += cost.total
    sum.priced++
    return
  }
  sum.unpriced++
  if (sum.unpricedModels.includes(model)) return
  sum.unpricedModels.push(model)
  sum.unpricedModels.sort()
}

/** Distinct model ids a price list remembers (client-sent names are unbounded). */
const REMEMBERED_MODELS = 1000

/** The catalog prices of model ids (the user's rows first), each id resolved once. */
export class PriceList {
  readonly #memo = new Map<string, Prices | null>()

  constructor(private readonly models: readonly ModelInfo[] = []) {}

  /** The prices of a model id; undefined when neither the user's rows nor the catalog know it or price it. */
  pricesOf(model: string): Prices | undefined {
    let prices = this.#memo.get(model)
    if (prices === undefined) {
      const resolved = resolveModel(model, { models: this.models })
      prices = (resolved.known && resolved.model.prices) || null
      setBounded(this.#memo, model, prices, REMEMBERED_MODELS)
    }
    return prices ?? undefined
  }

  /** The cost of one request of `model`; undefined when its prices are unknown. */
  costOf(model: string, tokens: BilledTokens): Cost | undefined {
    return requestCost(tokens, this.pricesOf(model))
  }
}
