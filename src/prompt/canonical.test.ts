import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { ContextCanon, structurallyEqual } from "./canonical.js"

/** JSON text with the keys of every object sorted: equal for two JSON values exactly when they are equal. */
function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(",")}]`
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value).sort()
    return `{${keys.map((k) => `${JSON.stringify(k)}:${sortedJson((value as Record<string, unknown>)[k])}`).join(",")}}`
  }
  return JSON.stringify(value)
}

const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T

/** The same value with the keys of every object in reverse order. */
function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys)
  if (value !== null && typeof value === "object")
    return Object.fromEntries(
      Object.entries(value)
        .reverse()
        .map(([k, v]) => [k, reversedKeys(v)]),
    )
  return value
}

const json = fc.jsonValue({ maxDepth: 4 })

describe("structurallyEqual", () => {
  it("agrees with equality of JSON text with sorted keys", () => {
    fc.assert(
      fc.property(json, json, (a, b) => {
        expect(structurallyEqual(a, b)).toBe(sortedJson(a) === sortedJson(b))
      }),
      { numRuns: 500 },
    )
  })

  it("finds a copy equal whatever the order of its keys", () => {
    fc.assert(
      fc.property(json, (a) => {
        expect(structurallyEqual(a, copy(a))).toBe(true)
        expect(structurallyEqual(a, reversedKeys(copy(a)))).toBe(true)
      }),
    )
  })

  it("tells apart what JSON text would not", () => {
    expect(structurallyEqual({ a: undefined }, {})).toBe(false)
    expect(structurallyEqual({}, { a: undefined })).toBe(false)
    expect(structurallyEqual({ a: 1, b: undefined }, { a: 1, c: undefined })).toBe(false)
    expect(structurallyEqual([undefined], [null])).toBe(false)
    expect(structurallyEqual({ n: Number.NaN }, { n: null })).toBe(false)
    expect(structurallyEqual(new Date(0), {})).toBe(false)
    expect(structurallyEqual([1], { 0: 1 })).toBe(false)
  })

  it("counts an inherited enumerable key as a difference, never as equal", () => {
    const proto = { inherited: 1 }
    const a = Object.assign(Object.create(proto), { own: 1 })
    const b = Object.assign(Object.create(proto), { own: 1 })
    expect(structurallyEqual(a, b)).toBe(false)
    expect(structurallyEqual(Object.create(null), Object.create(null))).toBe(true)
  })
})

describe("ContextCanon", () => {
  it("gives equal fields of a re-read context the identity of the first one seen", () => {
    const canon = new ContextCanon<Record<string, unknown>>()
    const first = { date: "2026-01-01", tools: { exclude: ["a"] }, skills: [{ name: "s" }] }
    expect(canon.canonical(first)).toBe(first)
    const again = canon.canonical({ ...copy(first), date: "2027-01-01" })
    expect(again.tools).toBe(first.tools)
    expect(again.skills).toBe(first.skills)
    expect(again.date).toBe("2027-01-01")
    const other = canon.canonical({ ...first, tools: { exclude: ["b"] } })
    expect(other.tools).not.toBe(first.tools)
  })
})
