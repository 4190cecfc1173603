import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { InstructionFile } from "../prompt-context.js"
import { applyBudget, budgetNotice, headAtLineEnd } from "./budget.js"

const bytes = (s: string) => Buffer.byteLength(s, "utf8")

function file(path: string, text: string, when: "always" | "manual" = "always"): InstructionFile {
  return { path, convention: "agents-md", scope: "project", text, activation: { when } }
}

describe("applyBudget", () => {
  it("leaves files alone when they fit", () => {
    const files = [file("a.md", "one\n"), file("b.md", "two\n")]
    expect(applyBudget(files, 100)).toEqual({ files, diagnostics: [] })
  })

  it("cuts the least specific file first, with a notice and a diagnostic", () => {
    const general = file("AGENTS.md", `${"general line\n".repeat(40)}`)
    const specific = file("pkg/AGENTS.md", "specific rule\n")
    const { files, diagnostics } = applyBudget([general, specific], 300)
    expect(files[1]).toEqual(specific)
    expect(files[0]!.truncated).toBe(true)
    expect(files[0]!.text).toContain("[promptline: this file was cut to fit the instruction budget;")
    expect(files[0]!.text).toContain("Read AGENTS.md for the rest.")
    expect(files[0]!.text.startsWith("general line\n")).toBe(true)
    expect(files.reduce((n, f) => n + bytes(f.text), 0)).toBeLessThanOrEqual(300)
    expect(diagnostics).toEqual([
      expect.objectContaining({ level: "warning", code: "instruction-budget", path: "AGENTS.md" }),
    ])
  })

  it("cuts an on-demand file alone to the budget and leaves always-on totals to the always-on files", () => {
    const big = file("rule.md", "x\n".repeat(500), "manual")
    const { files } = applyBudget([file("a.md", "short\n"), big], 200)
    expect(files[0]!.truncated).toBeUndefined()
    expect(files[1]!.truncated).toBe(true)
    expect(bytes(files[1]!.text)).toBeLessThanOrEqual(200)
  })

  it("never exceeds the budget, keeps prefixes, and cuts general files before specific ones", () => {
    const line = fc.stringMatching(/^[a-zé€ ]{0,30}$/)
    const text = fc.array(line, { maxLength: 30 }).map((lines) => lines.map((l) => `${l}\n`).join(""))
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 6 }), fc.integer({ min: 0, max: 3000 }), (texts, extra) => {
        const input = texts.map((t, i) => file(`f${i}.md`, t))
        const worst = input.reduce((n, f) => n + bytes(budgetNotice(f.path, bytes(f.text), bytes(f.text))) + 2, 0)
        const budget = worst + extra
        const { files } = applyBudget(input, budget)
        expect(files.reduce((n, f) => n + bytes(f.text), 0)).toBeLessThanOrEqual(budget)
        let laterCut = false
        for (let i = files.length - 1; i >= 0; i--) {
          const out = files[i]!
          if (!out.truncated) {
            expect(out.text).toBe(input[i]!.text)
            // A file more specific than a cut one is never cut while this one is intact, unless this one is
            // no longer than its notice alone (cutting it would not make it shorter).
            const size = bytes(out.text)
            if (laterCut) expect(size).toBeLessThanOrEqual(bytes(budgetNotice(out.path, 0, size)))
          } else {
            laterCut = true
            const kept = out.text.slice(0, out.text.indexOf("[promptline:")).replace(/\n\n$/, "")
            expect(input[i]!.text.startsWith(kept)).toBe(true)
          }
        }
      }),
    )
  })
})

describe("headAtLineEnd", () => {
  it("cuts at the last line end within the limit", () => {
    expect(headAtLineEnd("ab\ncd\nef\n", 7)).toBe("ab\ncd")
  })

  it("never splits a multi-byte character when there is no line end", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 40 }), fc.integer({ min: 0, max: 200 }), (s, max) => {
        const head = headAtLineEnd(s.replace(/\n/g, ""), max)
        expect(head.includes("\uFFFD")).toBe(s.includes("\uFFFD"))
        expect(bytes(head)).toBeLessThanOrEqual(Math.max(max, 0))
      }),
    )
  })
})
