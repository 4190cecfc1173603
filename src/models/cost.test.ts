import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { addCost, type Cost, emptyCostSum, PriceList, requestCost } from "./cost.js"
import type { ModelInfo, Prices } from "./types.js"

const prices: Prices = {
  input: 2,
  output: 10,
  cacheRead: 0.2,
  cacheWrite: 2.5,
  longContext: { above: 272_000, input: 4, output: 15 },
}

const tokens = fc.record({
  input: fc.nat(200_000),
  output: fc.nat(100_000),
  cacheRead: fc.nat(50_000),
  cacheWrite: fc.nat(20_000),
})

describe("requestCost", () => {
  it("prices the prompt's parts at their own rates and the output at the output rate", () => {
    const cost = requestCost({ input: 1000, output: 100, cacheRead: 10_000, cacheWrite: 2000 }, prices)!
    expect(cost.input).toBeCloseTo((1000 * 2 + 10_000 * 0.2 + 2000 * 2.5) / 1e6, 12)
    expect(cost.output).toBeCloseTo((100 * 10) / 1e6, 12)
    expect(cost.total).toBeCloseTo(cost.input + cost.output, 12)
  })

  it("prices a request above the long-context threshold at the long rates", () => {
    const cost = requestCost({ input: 300_000, output: 1000, cacheRead: 0, cacheWrite: 0 }, prices)!
    expect(cost.total).toBeCloseTo((300_000 * 4 + 1000 * 15) / 1e6, 12)
  })

  it("prices cache reads and writes at the input rate where the row has none", () => {
    const cost = requestCost({ input: 10, output: 0, cacheRead: 20, cacheWrite: 30 }, { input: 1, output: 3 })!
    expect(cost.input).toBeCloseTo(60 / 1e6, 12)
  })

  it("has no cost without prices, whatever the tokens", () => {
    fc.assert(fc.property(tokens, (t) => requestCost(t, undefined) === undefined))
  })

  it("splits every cost into its input and output parts, never below zero, output priced only by output", () => {
    fc.assert(
      fc.property(tokens, (t) => {
        const cost = requestCost(t, prices)!
        expect(cost.total).toBeCloseTo(cost.input + cost.output, 9)
        expect(cost.input).toBeGreaterThanOrEqual(0)
        expect(cost.output).toBeGreaterThanOrEqual(0)
        expect(cost.output === 0).toBe(t.output === 0)
      }),
    )
  })

  it("grows with every kind of token", () => {
    fc.assert(
      fc.property(tokens, fc.constantFrom("input", "output", "cacheRead", "cacheWrite"), (t, kind) => {
        const more = { ...t, [kind]: t[kind as keyof typeof t] + 1000 }
        expect(requestCost(more, prices)!.total).toBeGreaterThan(requestCost(t, prices)!.total)
      }),
    )
  })
})

describe("a cost sum", () => {
  it("adds priced requests and counts the unpriced ones with their models, never as zero", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.option(tokens, { nil: undefined }), fc.constantFrom("a", "b", "c"))),
        (requests) => {
          const sum = emptyCostSum()
          const costs: (Cost | undefined)[] = requests.map(([t]) => (t ? requestCost(t, prices) : undefined))
          for (const [i, [, model]] of requests.entries()) addCost(sum, costs[i], model)
          const priced = costs.filter((c): c is Cost => c !== undefined)
          expect(sum.total).toBeCloseTo(
            priced.reduce((n, c) => n + c.total, 0),
            9,
          )
          expect(sum.total).toBeCloseTo(sum.input + sum.output, 9)
          expect(sum.unpriced).toBe(costs.length - priced.length)
          expect(sum.priced).toBe(priced.length)
          const models = [...new Set(requests.filter(([t]) => !t).map(([, m]) => m))].sort()
          expect(sum.unpricedModels).toEqual(models)
        },
      ),
    )
  })
})

describe("a price list", () => {
  it("finds a catalog model by any of its ids, and knows no price for a model it does not know", () => {
    const list = new PriceList()
    expect(list.pricesOf("claude-sonnet-4-5")).toMatchObject({ input: 3, output: 15 })
    expect(list.pricesOf("claude-sonnet-4-5-20250929")).toEqual(list.pricesOf("claude-sonnet-4-5"))
    expect(list.pricesOf("a-model-nobody-knows")).toBeUndefined()
    expect(list.costOf("a-model-nobody-knows", { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 })).toBeUndefined()
    expect(list.costOf("claude-sonnet-4-5", { input: 1_000_000, output: 0, cacheRead: 0, cacheWrite: 0 })).toEqual({
      input: 3,
      output: 0,
      total: 3,
    })
  })

  it("takes the user's rows before the catalog, and a user row without prices has none", () => {
    const row = (id: string, rowPrices?: Prices): ModelInfo => ({
      id,
      provider: "p",
      family: "f",
      contextWindow: 100_000,
      maxOutput: 1000,
      tokenizer: "estimate",
      capabilities: { nativeTools: true, images: false, thinking: false },
      source: "user",
      ...(rowPrices ? { prices: rowPrices } : {}),
    })
    const list = new PriceList([row("claude-sonnet-4-5", { input: 1, output: 1 }), row("house-model")])
    expect(list.pricesOf("claude-sonnet-4-5")).toEqual({ input: 1, output: 1 })
    expect(list.pricesOf("house-model")).toBeUndefined()
  })
})
