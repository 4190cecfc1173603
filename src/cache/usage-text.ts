/** Usage and cost as people read them: dollars, a cost with its parts and what has no price, a run's one line. */
import type { Cost, CostSum } from "../models/cost.js"
import type { UsageTotals } from "./usage.js"

const n = (x: number) => Math.round(x).toLocaleString("en-US")
const plural = (count: number, word: string) => `${n(count)} ${word}${count === 1 ? "" : "s"}`

/** US dollars with four decimals, the one precision of every cost promptline prints. */
export const usd = (dollars: number): string => `$${dollars.toFixed(4)}`

/** The mark of a cost that cannot be known: the model has no catalog price. */
export const UNPRICED = "$?"

/** One request's cost: dollars, or `$?` when its model has no price. */
export function costText(cost: Cost | undefined): string {
  return cost ? usd(cost.total) : UNPRICED
}

/**
 * A summed cost with its parts, and the requests it leaves out for want of a price:
 * `$0.1690 ($0.1234 input + $0.0456 output) + $? for 3 requests of local-model (no price)`; only `$? (no price for
 * local-model)` when no request had a price.
 */
export function costSumText(sum: CostSum): string {
  const priced = `${usd(sum.total)} (${usd(sum.input)} input + ${usd(sum.output)} output)`
  if (sum.unpriced === 0) return priced
  const models = sum.unpricedModels.join(", ")
  if (sum.priced === 0) return `${UNPRICED} (no price for ${models})`
  return `${priced} + ${UNPRICED} for ${plural(sum.unpriced, "request")} of ${models} (no price)`
}

/**
 * A run's usage in one line, for the end of a run:
 * `promptline: 12 requests · in 123,456 tokens (87% cached) · out 3,456 · $0.1690` (and `+ $?` for requests of a
 * model without a price, errors and fallbacks when there were any).
 */
export function usageLine(totals: UsageTotals): string {
  return `promptline: ${usageSummary(totals)}`
}

/** The usage line's figures without its name: `12 requests · in 123,456 tokens (87% cached) · out 3,456 · $0.1690`. */
export function usageSummary(totals: UsageTotals): string {
  const t = totals.tokens
  const prompt = t.input + t.cacheRead + t.cacheWrite
  const parts = [
    plural(totals.requests, "request"),
    `in ${n(prompt)} tokens (${Math.round(totals.cachedShare * 100)}% cached)`,
    `out ${n(t.output)}`,
    totals.cost.unpriced === 0
      ? usd(totals.cost.total)
      : totals.cost.priced === 0
        ? `${UNPRICED} (no price for ${totals.cost.unpricedModels.join(", ")})`
        : `${usd(totals.cost.total)} + ${UNPRICED} (${plural(totals.cost.unpriced, "request")} without a price)`,
  ]
  if (totals.errors > 0) parts.push(plural(totals.errors, "error"))
  if (totals.fallbacks > 0) parts.push(plural(totals.fallbacks, "fallback"))
  if (totals.unreported > 0) parts.push(`${plural(totals.unreported, "request")} without usage`)
  return parts.join(" · ")
}
