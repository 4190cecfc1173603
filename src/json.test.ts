import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { FileError } from "./errors.js"
import { MAX_JSON_DEPTH, nestsDeeperThan, parseJsonDocument } from "./json.js"

const errorOf = (raw: string): FileError => {
  try {
    parseJsonDocument(raw, "f.json")
  } catch (error) {
    return error as FileError
  }
  throw new Error("no error")
}

describe("parseJsonDocument", () => {
  it("reads any JSON value as JSON.parse does", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(0, 2), (value, indent) => {
        const raw = JSON.stringify(value, null, indent)
        expect(parseJsonDocument(raw, "f.json")).toEqual(JSON.parse(raw))
      }),
    )
  })

  it("names the line, column and cause, in plain words, of what is not strict JSON (comments, trailing commas, nothing, a BOM)", () => {
    const cases: [string, string, string][] = [
      ['{\n  "a": 1,\n  // note\n  "b": 2\n}', "3:3", "a comment, which plain JSON does not allow"],
      ["[\n  1,\n  2,\n]", "4:1", 'a comma with no value after it, before "]"'],
      ["", "1:1", "expected a value, found the end of the file"],
      ["\uFEFF[1]", "1:1", "a byte order mark (U+FEFF) is not allowed here"],
      ['{\n  "a": [1, 2\n}', "3:1", 'a comma or a closing bracket is missing before "}"'],
    ]
    for (const [raw, at, cause] of cases) {
      const error = errorOf(raw) as FileError
      expect(error).toBeInstanceOf(FileError)
      expect(error.message).toBe(`f.json:${at}: not valid JSON: ${cause}`)
      expect(`${error.line}:${error.column}`).toBe(at)
    }
  })

  it("keeps a __proto__ key as data: the parsed object's prototype is untouched", () => {
    const value = parseJsonDocument('{"__proto__": {"polluted": true}, "a": 1}', "f.json") as Record<string, unknown>
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype)
    expect(Object.keys(value)).toEqual(["__proto__", "a"])
    expect(value.polluted).toBeUndefined()
  })
})

/** The nesting depth of a parsed value, the plain recursive way (the reference the byte scan must agree with). */
function depthOf(value: unknown): number {
  if (Array.isArray(value)) return 1 + Math.max(0, ...value.map(depthOf))
  if (typeof value === "object" && value !== null) return 1 + Math.max(0, ...Object.values(value).map(depthOf))
  return 0
}

/** Strings full of the characters a byte scan could trip on: brackets, quotes, backslashes, multi-byte text. */
const tricky = fc.string({ unit: fc.constantFrom("[", "]", "{", "}", '"', "\\", "a", "é", "😀", "\n") })

describe("nestsDeeperThan", () => {
  it("agrees with the parsed value's depth for any JSON text and limit", () => {
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: "small", withCrossShrink: true },
        tricky,
        fc.integer(),
        fc.constant(null),
        fc.array(tie("node"), { maxLength: 3 }),
        fc.dictionary(tricky, tie("node"), { maxKeys: 3 }),
      ),
    })).node
    fc.assert(
      fc.property(value, fc.integer({ min: 0, max: 8 }), fc.boolean(), (v, limit, asBytes) => {
        const text = JSON.stringify(v, null, limit % 2 === 0 ? 0 : 1)
        const input = asBytes ? Buffer.from(text) : text
        expect(nestsDeeperThan(input, limit)).toBe(depthOf(v) > limit)
      }),
      { numRuns: 500 },
    )
  })

  it("answers any text, valid JSON or not, as a byte-by-byte scan does", () => {
    // The oracle: every byte in turn, a backslash inside a string skipping the byte after it.
    const oracle = (text: string, limit: number) => {
      const bytes = Buffer.from(text)
      let depth = 0
      let inString = false
      for (let i = 0; i < bytes.length; i++) {
        const b = bytes[i]!
        if (inString) {
          if (b === 0x5c) i++
          else if (b === 0x22) inString = false
        } else if (b === 0x22) inString = true
        else if (b === 0x5b || b === 0x7b) {
          if (++depth > limit) return true
        } else if (b === 0x5d || b === 0x7d) depth--
      }
      return false
    }
    const text = fc.string({ unit: fc.constantFrom("[", "{", "]", "}", '"', "\\", "\\", "a", "é"), maxLength: 60 })
    fc.assert(
      fc.property(text, fc.integer({ min: 0, max: 4 }), (t, limit) => {
        expect(nestsDeeperThan(t, limit)).toBe(oracle(t, limit))
        expect(nestsDeeperThan(new Uint8Array(Buffer.from(t)), limit)).toBe(oracle(t, limit))
      }),
      { numRuns: 2000 },
    )
  })

  it("answers for nesting far deeper than any recursive walk survives", () => {
    const deep = `${'{"a":['.repeat(100_000)}${"]}".repeat(100_000)}`
    expect(nestsDeeperThan(deep, MAX_JSON_DEPTH)).toBe(true)
    expect(nestsDeeperThan(`${"[".repeat(MAX_JSON_DEPTH)}${"]".repeat(MAX_JSON_DEPTH)}`, MAX_JSON_DEPTH)).toBe(false)
    expect(nestsDeeperThan(`"${"[".repeat(1000)}"`, 0)).toBe(false)
  })
})
