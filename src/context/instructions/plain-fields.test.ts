import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { parseDocument } from "yaml"
import { plainFields } from "./plain-fields.js"

/** What YAML makes of a block, as splitFrontmatter reads it: fields, or undefined for an error or no mapping. */
function yamlFields(block: string): Record<string, unknown> | undefined {
  const doc = parseDocument(block, { prettyErrors: false, uniqueKeys: false })
  if (doc.errors.length > 0) return undefined
  let value: unknown
  try {
    value = doc.toJS()
  } catch {
    return undefined
  }
  if (value === null || value === undefined) return {}
  return typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined
}

describe("plainFields", () => {
  it("reads the frontmatter rule files use, as YAML does", () => {
    const block = [
      "description: Use the repository's helpers, not new ones",
      "globs: packages/p0/**",
      "alwaysApply: false",
      "paths: [\"**/*.test.ts\", 'src/**']",
      "trigger: always_on",
      "# a comment",
      "",
      "empty:",
      "url: https://example.com/a",
    ].join("\n")
    const fields = plainFields(block)
    expect(fields).toEqual({
      description: "Use the repository's helpers, not new ones",
      globs: "packages/p0/**",
      alwaysApply: false,
      paths: ["**/*.test.ts", "src/**"],
      trigger: "always_on",
      empty: null,
      url: "https://example.com/a",
    })
    expect(fields).toEqual(yamlFields(block))
  })

  it("leaves to YAML what it cannot be sure of", () => {
    for (const block of [
      "globs: *.ts",
      "n: 1",
      "n: .5",
      "a: b: c",
      "a: b # comment",
      "list:\n  - a",
      "a: x\na: y",
      'a: "esc\\"aped"',
      "a: ['it''s']",
      "a: [1, 2]",
      "a:\tb",
      "key : v",
      "__proto__: x",
      "a: |\n  text",
      "a: &anchor x",
      "a: !tag x",
    ]) {
      expect(plainFields(block), block).toBeUndefined()
    }
  })

  it("gives exactly YAML's fields whenever it answers", () => {
    const piece = fc.constantFrom(
      "a",
      "Z",
      "_",
      "1",
      "0x",
      ".",
      "-",
      "+",
      "~",
      " ",
      "  ",
      ":",
      ": ",
      "#",
      " #",
      "'",
      '"',
      "\\",
      "[",
      "]",
      ",",
      "{",
      "}",
      "*",
      "&",
      "!",
      "|",
      ">",
      "%",
      "@",
      "`",
      "/",
      "?",
      "é",
      "中",
      "😀",
      "\t",
      "true",
      "False",
      "NULL",
      "null",
      "yes",
      "on",
      ".inf",
      "1e3",
      "<<",
    )
    const text = fc.array(piece, { maxLength: 8 }).map((parts) => parts.join(""))
    const key = fc.oneof(fc.constantFrom("a", "b", "globs", "true", "null", "x-y", "__proto__", "1a"), text)
    const value = fc.oneof(
      text,
      text.map((t) => `"${t}"`),
      text.map((t) => `'${t}'`),
      fc.array(text, { maxLength: 3 }).map((items) => `[${items.join(", ")}]`),
      fc.array(text, { maxLength: 3 }).map((items) => `[${items.map((t) => JSON.stringify(t)).join(",")}]`),
    )
    const line = fc.oneof(
      fc.tuple(key, value).map(([k, v]) => `${k}: ${v}`),
      fc.tuple(key, text).map(([k, v]) => `${k}:${v}`),
      text.map((t) => `# ${t}`),
      fc.constant(""),
      text,
    )
    let answered = 0
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 5 }), (lines) => {
        const block = lines.join("\n")
        const fields = plainFields(block)
        if (fields === undefined) return
        answered++
        expect(fields).toEqual(yamlFields(block))
      }),
      { numRuns: 3000 },
    )
    // The property is only worth something if the fast path answers often.
    expect(answered).toBeGreaterThan(300)
  })
})
