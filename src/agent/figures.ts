import { requestCost } from "../models/cost.js"
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

/** Cache hit rate and cost of one request's usage (or of a run, with its summed cost). */
export function figuresOf(usage: Usage, model: ModelInfo, cost = requestCost(usage, model.prices)?.total): TurnFigures {
  const prompt = usage.input + usage.cacheRead + usage.cacheWrite
  const figures: TurnFigures = { usage, cacheHitRate: prompt === 0 ? 0 : usage.cacheRead / prompt }
  if (cost !== undefined) figures.cost = cost
  return figures
}
