import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { setBounded } from "./bounded-map.js"

describe("setBounded", () => {
  it("never holds more than max entries, keeps the newest, and drops nothing to replace a key", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 60 }),
        fc.integer({ min: 1, max: 8 }),
        (keys, max) => {
          const map = new Map<number, number>()
          for (const [i, k] of keys.entries()) setBounded(map, k, i, max)
          expect(map.size).toBeLessThanOrEqual(max)
          if (keys.length > 0) expect(map.get(keys.at(-1)!)).toBe(keys.length - 1)
          for (const [k, v] of map) expect(keys[v]).toBe(k)
        },
      ),
    )
    const map = new Map([
      ["a", 1],
      ["b", 2],
    ])
    setBounded(map, "a", 3, 2)
    expect([...map]).toEqual([
      ["a", 3],
      ["b", 2],
    ])
    setBounded(map, "c", 4, 2)
    expect([...map]).toEqual([
      ["b", 2],
      ["c", 4],
    ])
  })
})
