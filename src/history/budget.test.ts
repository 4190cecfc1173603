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
  it("never gives more than the model's input limit", () => {
    expect(budgetFor({ contextWindow: 400_000, maxInput: 272_000 }).effective).toBe(272_000)
    expect(budgetFor({ contextWindow: 200_000 }).effective).toBe(160_000)
  })
})
