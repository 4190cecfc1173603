import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { basicContext } from "../prompt/test-helpers/contexts.js"
import { describeHits, findVolatile } from "./volatile.js"

const context = basicContext({
  git: { root: "/home/dev/shop", branch: "feature/cart-rework", status: " M src/cart.ts\n?? notes.md" },
})

describe("findVolatile", () => {
  it("finds the date, cwd, home, branch and status lines, each once, the cwd before the home inside it", () => {
    const text =
      "Work in /home/dev/shop/src. Config in /home/dev/.npmrc. On feature/cart-rework since 2026-11-29.\nM src/cart.ts"
    const hits = findVolatile(text, context)
    expect(hits.map((h) => [h.kind, h.value, h.count])).toEqual([
      ["git-branch", "feature/cart-rework", 1],
      ["cwd", "/home/dev/shop", 1],
      ["git-status", "M src/cart.ts", 1],
      ["date", "2026-11-29", 1],
      ["home", "/home/dev", 1],
    ])
  })

  it("ignores values that are part of a longer name or path", () => {
    const text = "See /home/devices/shopping and /x/home/dev/shop and 12026-11-290 and feature/cart-reworked."
    expect(findVolatile(text, context)).toEqual([])
  })

  it("counts a value at the end of a sentence", () => {
    expect(findVolatile("The project is /home/dev/shop.", context)).toEqual([
      { kind: "cwd", value: "/home/dev/shop", count: 1 },
    ])
  })

  it("treats a branch named like a word as volatile only after 'branch'", () => {
    const main = basicContext()
    expect(findVolatile("Explain the main idea; keep the main loop small.", main)).toEqual([])
    expect(findVolatile("Git repository: /srv/x (branch main)", main)).toEqual([
      { kind: "git-branch", value: "main", count: 1 },
    ])
  })

  it("finds clock times and ISO date-times whatever the context", () => {
    const hits = findVolatile("Started 10:30:15, due 2027-01-02T08:00.", context)
    expect(hits).toEqual([
      { kind: "time", value: "08:00", count: 1 },
      { kind: "time", value: "10:30:15", count: 1 },
    ])
    expect(findVolatile("Use ratios like 3:2 and versions like 1.2.3.", context)).toEqual([])
  })

  it("finds the cwd wherever it is put into text made of other words (property)", () => {
    const word = fc.stringMatching(/^[a-z]{1,8}$/)
    fc.assert(
      fc.property(fc.array(word, { maxLength: 10 }), fc.array(word, { maxLength: 10 }), (before, after) => {
        const text = [...before, context.cwd, ...after].join(" ")
        const hits = findVolatile(text, context)
        return hits.length === 1 && hits[0]!.kind === "cwd" && hits[0]!.count === 1
      }),
    )
  })

  it("finds nothing in text without digits, slashes or the branch (property)", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z .,;:\n-]{0,200}$/), (text) => findVolatile(text, context).length === 0),
    )
  })
})

describe("describeHits", () => {
  it("lists the values in words", () => {
    expect(
      describeHits([
        { kind: "date", value: "2026-11-29", count: 1 },
        { kind: "cwd", value: "/p", count: 2 },
      ]),
    ).toBe('the date "2026-11-29" and the working directory "/p"')
  })
})
