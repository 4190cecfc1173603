import { describe, expect, it } from "vitest"
import { MODEL_CATALOG } from "./catalog.js"
import { resolveModel } from "./resolve.js"
import { REASONING_EFFORTS } from "./types.js"

/** A real calendar day written YYYY-MM-DD (2026-02-30 is refused). */
function isDay(text: string | undefined): boolean {
  if (!text || !/^\d{4}-\d{2}-\d{2}$/.test(text)) return false
  const [y, m, d] = text.split("-").map(Number) as [number, number, number]
  const date = new Date(Date.UTC(y, m - 1, d))
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d
}

describe("every catalog row cites where its figures come from", () => {
  it("has a source URL and the day it was checked", () => {
    for (const row of MODEL_CATALOG) {
      expect(row.source, row.id).toMatch(/^https:\/\/[a-z0-9.-]+\.[a-z]{2,}\//)
      expect(isDay(row.checked), `${row.id} checked "${row.checked}"`).toBe(true)
      if (row.note !== undefined) expect(row.note.trim().length, row.id).toBeGreaterThan(0)
    }
  })

  it("refuses malformed checked days", () => {
    expect(isDay("2026-12-01")).toBe(true)
    for (const bad of [undefined, "", "2026-2-1", "2026-02-30", "01-12-2026", "2026-12-01T00:00"])
      expect(isDay(bad), String(bad)).toBe(false)
  })

  it("gives thinking rules that are well-formed and only to models that think", () => {
    for (const row of MODEL_CATALOG) {
      const rules = row.thinking
      if (!rules) continue
      expect(row.capabilities.thinking, row.id).toBe(true)
      if (rules.control === "budget") {
        expect(rules.minBudget, row.id).toBeGreaterThan(0)
        expect(rules.maxBudget!, row.id).toBeGreaterThanOrEqual(rules.minBudget!)
      } else {
        expect(rules.efforts?.length, row.id).toBeGreaterThan(0)
        const ranks = rules.efforts!.map((e) => REASONING_EFFORTS.indexOf(e))
        expect(ranks, row.id).toEqual([...ranks].sort((a, b) => a - b))
      }
    }
  })
})

describe("rows the issue found missing or wrong", () => {
  it.each([
    ["grok-4", 256_000],
    ["gemini-3-pro-preview", 1_048_576],
    ["claude-3-7-sonnet-20250219", 200_000],
    ["claude-3-7-sonnet-latest", 200_000],
    ["o1", 200_000],
    ["gpt-5.1", 400_000],
    ["gemini-2.5-flash-lite", 1_048_576],
    ["grok-4-1-fast-reasoning", 2_000_000],
  ])("%s is known, with a %i window", (id, window) => {
    const r = resolveModel(id)
    expect(r.known).toBe(true)
    // Before, each was unknown (128k default) or matched a shorter id with a warning.
    expect(r.diagnostics.filter((d) => d.level !== "info")).toEqual([])
    expect(r.model.contextWindow).toBe(window)
  })

  it("keeps deepseek-chat and deepseek-reasoner on V4 Flash's 1M window, with the reason noted", () => {
    for (const id of ["deepseek-chat", "deepseek-reasoner"]) {
      const r = resolveModel(id)
      expect(r.model.canonicalId).toBe("deepseek-v4-flash")
      expect(r.model.contextWindow).toBe(1_000_000)
      expect(r.model.note).toMatch(/2026-07-24/)
    }
  })

  it("records which Gemini 2.5 models cannot turn thinking off", () => {
    expect(resolveModel("gemini-2.5-pro").model.thinking).toEqual({
      control: "budget",
      canDisable: false,
      minBudget: 128,
      maxBudget: 32_768,
    })
    expect(resolveModel("gemini-2.5-flash").model.thinking?.canDisable).toBe(true)
    expect(resolveModel("gemini-2.5-flash-lite").model.thinking?.minBudget).toBe(512)
  })
})
