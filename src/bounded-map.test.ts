import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { setBounded, WeightedMap } from "./bounded-map.js"

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

describe("WeightedMap", () => {
  it("holds at most its total weight, drops the oldest first, and never keeps an entry over the entry limit", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 12 }), fc.integer({ min: 0, max: 10 })), { maxLength: 60 }),
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 1, max: 12 }),
        (sets, max, maxEntry) => {
          const map = new WeightedMap<number, number>(max, maxEntry)
          // The reference: an insertion-ordered list, trimmed from the front.
          let model: [key: number, value: number, weight: number][] = []
          sets.forEach(([key, weight], value) => {
            map.set(key, value, weight)
            model = model.filter(([k]) => k !== key)
            if (weight <= maxEntry) model.push([key, value, weight])
            while (model.reduce((sum, [, , w]) => sum + w, 0) > max) model.shift()
          })
          for (let key = 0; key <= 12; key++) expect(map.get(key)).toBe(model.find(([k]) => k === key)?.[1])
        },
      ),
    )
  })
})
