import fc from "fast-check"
import type { ParseError } from "jsonc-parser"
import * as jsonc from "jsonc-parser"
import { describe, expect, it } from "vitest"
import { describeSyntaxError } from "./json-syntax.js"

/** The first syntax error jsonc-parser finds in strict JSON, described. */
function firstProblem(text: string) {
  const errors: ParseError[] = []
  jsonc.parse(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false })
  return errors[0] ? describeSyntaxError(text, errors[0]) : undefined
}

describe("describeSyntaxError", () => {
  it("says what is wrong in plain words, with the line and column of the place", () => {
    const cases: [string, string, number, number][] = [
      ['{\n  "a": 1\n  "b": 2\n}', 'a comma is missing before "b"', 3, 3],
      ['{\n  "a": 1,\n}', 'a comma with no property after it, before "}"', 3, 1],
      ["[1, 2,]", 'a comma with no value after it, before "]"', 1, 7],
      ['{ "a" 1 }', 'expected a colon after the property name, found "1"', 1, 7],
      ['{ "a": }', 'expected a value, found "}"', 1, 8],
      ["[1, 2", "expected a comma or ] to close the array, found the end of the file", 1, 6],
      ['{ "a": "x', 'a string that is never closed with "', 1, 8],
      ["{} {}", 'more text after the end of the JSON value: "{"', 1, 4],
      ['{\n  // note\n  "a": 1\n}', "a comment, which plain JSON does not allow", 2, 3],
      ["\uFEFF[1]", "a byte order mark (U+FEFF) is not allowed here", 1, 1],
    ]
    for (const [text, message, line, column] of cases)
      expect(firstProblem(text), JSON.stringify(text)).toEqual({ message, line, column })
  })

  it("never shows a parser's code name, and points inside the text, for any broken JSON", () => {
    const broken = fc
      .tuple(fc.json(), fc.nat(), fc.constantFrom("", ",", ":", "{", "}", "[", "]", '"', "x", "\n", "/*", "\\"))
      .map(([json, at, insert]) => {
        const i = at % (json.length + 1)
        return json.slice(0, i) + insert + json.slice(i + (insert === "" ? 1 : 0))
      })
    fc.assert(
      fc.property(broken, (text) => {
        const problem = firstProblem(text)
        if (!problem) return
        expect(problem.message).not.toMatch(/\b[A-Z][a-z]+[A-Z]\w*Expected|Invalid[A-Z]|Unexpected[A-Z]/)
        const lines = text.split("\n")
        expect(problem.line).toBeGreaterThanOrEqual(1)
        expect(problem.line).toBeLessThanOrEqual(lines.length)
        expect(problem.column).toBeGreaterThanOrEqual(1)
        expect(problem.column).toBeLessThanOrEqual(lines[problem.line - 1]!.length + 1)
      }),
    )
  })
})
