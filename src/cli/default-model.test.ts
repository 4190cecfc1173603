import { describe, expect, it } from "vitest"
import { localDate } from "../context/local-date.js"
import { MODEL_CATALOG } from "../models/catalog.js"
import { lifecycleState, successorOf } from "../models/lifecycle.js"
import { resolveModel } from "../models/resolve.js"
import { DEFAULT_MODEL } from "./context-options.js"

/**
 * The CLI's default model must be one its provider still serves. Builds never read the clock (they use the
 * context's date); these tests decide the day themselves.
 */
describe("the default model", () => {
  const model = resolveModel(DEFAULT_MODEL).model

  it("is a catalog model, current on the day the catalog was last checked", () => {
    expect(resolveModel(DEFAULT_MODEL).known).toBe(true)
    const lastChecked = MODEL_CATALOG.flatMap((m) => [m.checked ?? "", m.lifecycle?.checked ?? ""])
      .sort()
      .at(-1)!
    expect(lifecycleState(model, lastChecked), `as of ${lastChecked}`).toBe("active")
  })

  // Deliberately compared with today's date: this test starts failing on the day the catalog says the default is
  // retired (or deprecated), whatever else changed, so a release never ships a default whose requests fail.
  // When it fails, make the successor it names the default (and check the catalog against the provider's page).
  it("is not deprecated or retired today (reads the clock on purpose)", () => {
    const today = localDate()
    const state = lifecycleState(model, today)
    expect(state, `${DEFAULT_MODEL} is ${state} on ${today}; successor: ${successorOf(model, today)}`).toBe("active")
  })
})
