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

/** Cache hit rate and cost of a usage record for a model (prices per million tokens). */
export function figuresOf(usage: Usage, model: ModelInfo): TurnFigures {
  const prompt = usage.input + usage.cacheRead + usage.cacheWrite
  const figures: TurnFigures = { usage, cacheHitRate: prompt === 0 ? 0 : usage.cacheRead / prompt }
  const p = model.prices
  if (p) {
    const cost =
      usage.input * p.input +
      usage.output * p.output +
      usage.cacheRead * (p.cacheRead ?? p.input) +
      usage.cacheWrite * (p.cacheWrite ?? p.input)
    figures.cost = cost / 1_000_000
  }
  return figures
}
