import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { MIN_SHORTEN_WIDTH, shortenAll } from "./shorten.js"

const len = (s: string) => [...s].length

/** Paths made of few distinct segments, so that long shared prefixes and suffixes are common. */
const segment = fc.constantFrom("src", "packages", "very-long-folder-name", "a", "docs", "rules", "AGENTS.md", "x.mdc")
const path = fc.array(segment, { minLength: 1, maxLength: 9 }).map((s) => s.join("/"))

describe("shortenAll", () => {
  it("keeps the file name and leading folders, and tells paths apart that a plain cut would merge", () => {
    const a = "packages/very-long-folder-name/one/.cursor/rules/AGENTS.md"
    const b = "packages/very-long-folder-name/two/.cursor/rules/AGENTS.md"
    const short = shortenAll([a, b], 36)
    expect(short.get(a)).not.toBe(short.get(b))
    for (const s of short.values()) {
      expect(len(s)).toBeLessThanOrEqual(36)
      expect(s.endsWith("AGENTS.md")).toBe(true)
      expect(s).toContain("…")
    }
    expect(short.get(a)).toContain("one")
    expect(short.get(b)).toContain("two")
  })

  it("keeps texts that fit as they are", () => {
    const short = shortenAll(["AGENTS.md", "CLAUDE.md"], 20)
    expect([...short]).toEqual([
      ["AGENTS.md", "AGENTS.md"],
      ["CLAUDE.md", "CLAUDE.md"],
    ])
  })

  it("refuses a width too narrow to stay unique", () => {
    expect(() => shortenAll(["a"], MIN_SHORTEN_WIDTH - 1)).toThrow(RangeError)
  })

  it("is injective, fits the width, keeps what fits and ignores order (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(path, fc.string({ maxLength: 80 })), { maxLength: 40 }),
        fc.integer({ min: MIN_SHORTEN_WIDTH, max: 60 }),
        (texts, width) => {
          const short = shortenAll(texts, width)
          const values = [...new Set(texts)].map((t) => short.get(t)!)
          expect(new Set(values).size).toBe(values.length)
          for (const t of texts) {
            expect(len(short.get(t)!)).toBeLessThanOrEqual(width)
            if (len(t) <= width) expect(short.get(t)).toBe(t)
          }
          expect(shortenAll([...texts].reverse(), width)).toEqual(short)
        },
      ),
      { numRuns: 300 },
    )
  })
})
