import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { droppedHeader } from "./record.js"

describe("droppedHeader", () => {
  it("is printable ASCII of at most 1,000 characters: whole paths in order, then how many more", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: "grapheme", maxLength: 80 }), { maxLength: 400 }), (paths) => {
        const header = droppedHeader(paths)
        expect(header).toMatch(/^[\x20-\x7e]*$/)
        expect(header.length).toBeLessThanOrEqual(1000)
        const more = /(?:^|, )and (\d+) more$/.exec(header)
        const shownCount = paths.length - Number(more?.[1] ?? 0)
        const escaped = paths
          .slice(0, shownCount)
          .map((p) => p.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`))
        expect(more ? header.slice(0, more.index) : header).toBe(escaped.join(", "))
        if (!more) expect(shownCount).toBe(paths.length)
      }),
    )
  })

  it("names every path when they fit, and a path's other characters as \\u escapes", () => {
    expect(droppedHeader(["metadata", "tools[3]"])).toBe("metadata, tools[3]")
    expect(droppedHeader(["a\u00fc\nb"])).toBe("a\\u00fc\\u000ab")
    const many = Array.from({ length: 456 }, (_, i) => `tools[${i + 3}]`)
    const header = droppedHeader(many)
    expect(header).toMatch(/^tools\[3\], tools\[4\], .*, and \d+ more$/)
    expect(header.length).toBeLessThanOrEqual(1000)
  })
})
