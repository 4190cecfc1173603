import { requestCost } from "../models/cost.js"
import type { ModelInfo } from "../models/types.js"
import type { Usage } from "../providers/stream.js"
import type { TurnFigures } from "./events.js"

/** Cache hit rate and cost of one request's usage (or of a run, with its summed cost). */
export function figuresOf(usage: Usage, model: ModelInfo, cost = requestCost(usage, model.prices)?.total): TurnFigures {
  const prompt = usage.input + usage.cacheRead + usage.cacheWrite
  const figures: TurnFigures = { usage, cacheHitRate: prompt === 0 ? 0 : usage.cacheRead / prompt }
  if (cost !== undefined) figures.cost = cost
  return figures
}
