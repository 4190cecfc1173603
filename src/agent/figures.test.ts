import { describe, expect, it } from "vitest"
import type { ModelInfo } from "../models/types.js"
import { figuresOf } from "./figures.js"

const model: ModelInfo = {
  id: "m",
  provider: "p",
  family: "f",
  contextWindow: 1_000_000,
  maxOutput: 1000,
  tokenizer: "o200k",
  capabilities: { nativeTools: true, images: false, thinking: false },
  prices: {
    input: 2,
    output: 10,
    cacheRead: 0.2,
    cacheWrite: 2.5,
    longContext: { above: 272_000, input: 4, output: 15 },
  },
  source: "test",
}

describe("costs", () => {
  it("prices a request by its parts, cache reads and writes at their own rates", () => {
    const usage = { input: 1000, output: 100, cacheRead: 10_000, cacheWrite: 2000 }
    expect(figuresOf(usage, model).cost).toBeCloseTo((1000 * 2 + 100 * 10 + 10_000 * 0.2 + 2000 * 2.5) / 1e6, 12)
    expect(figuresOf(usage, model).cacheHitRate).toBeCloseTo(10_000 / 13_000, 12)
  })

  it("prices a request above the long-context threshold at the long rates", () => {
    const usage = { input: 300_000, output: 1000, cacheRead: 0, cacheWrite: 0 }
    expect(figuresOf(usage, model).cost).toBeCloseTo((300_000 * 4 + 1000 * 15) / 1e6, 12)
  })

  it("has no cost for a model without prices", () => {
    const { prices: _, ...unpriced } = model
    expect(figuresOf({ input: 1, output: 1, cacheRead: 0, cacheWrite: 0 }, unpriced).cost).toBeUndefined()
  })
})
