import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { fitBudget, fitEffort, fitThinkingOff } from "./thinking.js"
import { type ModelInfo, REASONING_EFFORTS, type ThinkingRules } from "./types.js"

const model = (thinking?: ThinkingRules): Pick<ModelInfo, "id" | "thinking"> => ({ id: "m", thinking })
const effortArb = fc.constantFrom(...REASONING_EFFORTS)
const effortsArb = fc
  .subarray([...REASONING_EFFORTS], { minLength: 1 })
  .map((list) => [...list].sort((a, b) => REASONING_EFFORTS.indexOf(a) - REASONING_EFFORTS.indexOf(b)))

describe("fitting thinking settings to a model's rules", () => {
  it("always sends an effort the model lists, unchanged (and silent) when it lists the request", () => {
    fc.assert(
      fc.property(effortsArb, effortArb, (efforts, wanted) => {
        const fitted = fitEffort(model({ control: "effort", canDisable: false, efforts }), wanted)
        expect(efforts).toContain(fitted.value)
        expect(fitted.diagnostic === undefined).toBe(efforts.includes(wanted))
      }),
    )
  })

  it("prefers the higher of two equally near efforts", () => {
    expect(fitEffort(model({ control: "level", canDisable: false, efforts: ["low", "high"] }), "medium").value).toBe(
      "high",
    )
  })

  it("keeps budgets inside the range, and 0 only where thinking can be off", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1000 }),
        fc.integer({ min: 0, max: 40_000 }),
        fc.integer({ min: 0, max: 100_000 }),
        fc.boolean(),
        (minBudget, span, wanted, canDisable) => {
          const rules: ThinkingRules = { control: "budget", canDisable, minBudget, maxBudget: minBudget + span }
          const { value, diagnostic } = fitBudget(model(rules), wanted)
          if (wanted === 0 && canDisable) expect(value).toBe(0)
          else {
            expect(value).toBeGreaterThanOrEqual(minBudget)
            expect(value).toBeLessThanOrEqual(minBudget + span)
          }
          expect(diagnostic === undefined).toBe(value === wanted)
        },
      ),
    )
  })

  it("leaves requests alone for a model without rules", () => {
    expect(fitEffort(model(), "max")).toEqual({ value: "max" })
    expect(fitBudget(model(), 0)).toEqual({ value: 0 })
    expect(fitThinkingOff(model())).toEqual({ off: true })
  })

  it("turns thinking off into the least thinking a model accepts", () => {
    const budget = fitThinkingOff(model({ control: "budget", canDisable: false, minBudget: 128, maxBudget: 32_768 }))
    expect(budget).toMatchObject({ off: false, budget: 128 })
    const effort = fitThinkingOff(model({ control: "effort", canDisable: false, efforts: ["minimal", "high"] }))
    expect(effort).toMatchObject({ off: false, effort: "minimal" })
    expect(fitThinkingOff(model({ control: "effort", canDisable: true, efforts: ["low"] }))).toEqual({ off: true })
  })
})
