import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { budgetFor, defaultReserve } from "./budget.js"

describe("budget", () => {
  it.each([
    [64_000, 37_000],
    [128_000, 98_000],
    [200_000, 160_000],
    [1_000_000, 960_000],
    [32_768, 26_214],
    [400_000, 360_000],
  ])("a %i window leaves %i by Cline's rule", (window, effective) => {
    expect(budgetFor({ contextWindow: window }).effective).toBe(effective)
    expect(defaultReserve(window)).toBe(window - effective)
  })

  it("takes a configured reserve in tokens or as a fraction", () => {
    expect(budgetFor({ contextWindow: 200_000 }, 10_000).effective).toBe(190_000)
    expect(budgetFor({ contextWindow: 200_000 }, 0.25).effective).toBe(150_000)
    expect(budgetFor({ contextWindow: 1000 }, 5000).effective).toBe(1)
  })
})

describe("input limits below the window", () => {
  it("keeps a margin below the model's input limit", () => {
    // Before: gpt-5's budget was exactly its 272k input cap, so any counting error meant a refused request.
    expect(budgetFor({ contextWindow: 400_000, maxInput: 272_000 }).effective).toBe(258_400)
    expect(budgetFor({ contextWindow: 1_050_000, maxInput: 922_000 }).effective).toBe(875_900)
    expect(budgetFor({ contextWindow: 200_000 }).effective).toBe(160_000)
    // The window rule still wins when it is the tighter one.
    expect(budgetFor({ contextWindow: 400_000, maxInput: 390_000 }, 100_000).effective).toBe(300_000)
  })

  it("never reaches the input limit, whatever the window, limit and reserve", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1_000, max: 4_000_000 }),
        fc.integer({ min: 100, max: 4_000_000 }),
        fc.option(fc.integer({ min: 0, max: 200_000 }), { nil: undefined }),
        (window, maxInput, reserve) => {
          const budget = budgetFor({ contextWindow: window, maxInput }, reserve)
          expect(budget.effective).toBeLessThan(maxInput)
          expect(budget.effective).toBeLessThanOrEqual(window - budget.reserve)
          expect(budget.effective).toBeGreaterThanOrEqual(1)
        },
      ),
    )
  })
})
