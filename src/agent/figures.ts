import type { ModelInfo } from "../models/types.js"
import type { Usage } from "../providers/stream.js"
import type { TurnFigures } from "./events.js"

/** Adds two usage records. */
export function addUsage(a: Usage, b: Usage): Usage {
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheWrite: a.cacheWrite + b.cacheWrite,
    reasoning: (a.reasoning ?? 0) + (b.reasoning ?? 0),
  }
}

/** No usage. */
export const ZERO_USAGE: Usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 }

/**
 * The cost of one request in US dollars, or undefined when the model's prices are unknown. A request
 * whose prompt exceeds the long-context threshold is priced at the long-context rates, as providers bill it.
 */
export function costOf(usage: Usage, model: ModelInfo): number | undefined {
  const p = model.prices
  if (!p) return undefined
  const prompt = usage.input + usage.cacheRead + usage.cacheWrite
  const long = p.longContext && prompt > p.longContext.above ? p.longContext : undefined
  const input = long?.input ?? p.input
  const cost =
    usage.input * input +
    usage.output * (long?.output ?? p.output) +
    usage.cacheRead * (long?.cacheRead ?? p.cacheRead ?? input) +
    usage.cacheWrite * (long?.cacheWrite ?? p.cacheWrite ?? input)
  return cost / 1_000_000
}

/** Cache hit rate and cost of one request's usage (or of a run, with its summed cost). */
export function figuresOf(usage: Usage, model: ModelInfo, cost = costOf(usage, model)): TurnFigures {
  const prompt = usage.input + usage.cacheRead + usage.cacheWrite
  const figures: TurnFigures = { usage, cacheHitRate: prompt === 0 ? 0 : usage.cacheRead / prompt }
  if (cost !== undefined) figures.cost = cost
  return figures
}
