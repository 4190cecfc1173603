import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { globList, matchesEverything } from "./globs.js"

describe("globList", () => {
  it("splits a string at top-level commas only", () => {
    expect(globList("*.ts, src/**/*.{js,jsx} ,  'docs/*.md'")).toEqual(["*.ts", "src/**/*.{js,jsx}", "docs/*.md"])
  })

  it("accepts a list and flattens comma-separated items", () => {
    expect(globList(["a/**", "b/*.ts,c/*.ts", 3])).toEqual(["a/**", "b/*.ts", "c/*.ts"])
  })

  it("returns undefined for absent or empty values", () => {
    expect(globList(undefined)).toBeUndefined()
    expect(globList("")).toBeUndefined()
    expect(globList(" , ")).toBeUndefined()
    expect(globList(true)).toBeUndefined()
  })

  it("round-trips any list of comma-free globs joined with commas", () => {
    const glob = fc.stringMatching(/^[a-z*/.{}]{1,12}$/).filter((g) => g.trim() === g && !/[{}]/.test(g))
    fc.assert(
      fc.property(fc.array(glob, { minLength: 1, maxLength: 6 }), (globs) => {
        expect(globList(globs.join(", "))).toEqual(globs)
      }),
    )
  })

  it("knows the globs that match every path", () => {
    expect(matchesEverything(["**"])).toBe(true)
    expect(matchesEverything(["src/**"])).toBe(false)
  })
})
