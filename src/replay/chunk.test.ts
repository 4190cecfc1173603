import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { splitText } from "./chunk.js"

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff

describe("splitText", () => {
  it("gives back the text when joined, never splits a surrogate pair, keeps pieces near the size", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 300 }), fc.integer({ min: 1, max: 40 }), (text, size) => {
        const pieces = splitText(text, size)
        expect(pieces.join("")).toBe(text)
        for (const piece of pieces) {
          expect(piece.length).toBeGreaterThan(0)
          expect(piece.length).toBeLessThanOrEqual(Math.max(size, 2))
          expect(isHigh(piece.charCodeAt(piece.length - 1))).toBe(false)
          expect(isLow(piece.charCodeAt(0))).toBe(false)
        }
      }),
    )
  })

  it("breaks after whitespace when it can", () => {
    expect(splitText("The quick brown fox jumps", 12)).toEqual(["The quick ", "brown fox ", "jumps"])
    expect(splitText("", 5)).toEqual([])
  })
})
