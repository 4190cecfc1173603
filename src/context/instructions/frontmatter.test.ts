import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { stringify } from "yaml"
import { splitFrontmatter } from "./frontmatter.js"

describe("splitFrontmatter", () => {
  it("parses YAML frontmatter and removes it from the body", () => {
    const fm = splitFrontmatter("---\npaths:\n  - src/**\ndescription: hi\n---\n\nBody text\n")
    expect(fm).toEqual({ body: "Body text\n", data: { paths: ["src/**"], description: "hi" }, present: true })
  })

  it("leaves a text without frontmatter alone", () => {
    expect(splitFrontmatter("# Title\n---\nnot frontmatter\n")).toEqual({
      body: "# Title\n---\nnot frontmatter\n",
      data: {},
      present: false,
    })
  })

  it("treats an opening line without a closing one as plain text", () => {
    const text = "---\nthis is a horizontal rule, then prose\n"
    expect(splitFrontmatter(text)).toEqual({ body: text, data: {}, present: false })
  })

  it("reads Cursor's unquoted globs, which are not valid YAML, field by field", () => {
    const fm = splitFrontmatter("---\ndescription:\nglobs: *.tsx, src/**/*.{ts,tsx}\nalwaysApply: false\n---\nRule\n")
    expect(fm.error).toBeUndefined()
    expect(fm.data).toEqual({ description: undefined, globs: "*.tsx, src/**/*.{ts,tsx}", alwaysApply: false })
    expect(fm.body).toBe("Rule\n")
  })

  it("reads a list under a key in the lenient reader", () => {
    const fm = splitFrontmatter("---\nglobs:\n  - *.ts\n  - '*.tsx'\n---\nx")
    expect(fm.data).toEqual({ globs: ["*.ts", "*.tsx"] })
  })

  it("keeps broken frontmatter in the text and reports where", () => {
    const text = "---\nname: [unclosed\nthis line: is: odd: {\n---\nBody\n"
    const fm = splitFrontmatter(text)
    expect(fm.body).toBe(text)
    expect(fm.data).toEqual({})
    expect(fm.present).toBe(true)
    expect(fm.error?.line).toBeGreaterThanOrEqual(2)
  })

  it("treats empty frontmatter as no fields", () => {
    expect(splitFrontmatter("---\n---\nBody")).toEqual({ body: "Body", data: {}, present: true })
  })

  it("round-trips any YAML mapping and body", () => {
    const key = fc.stringMatching(/^[a-z][a-zA-Z0-9_-]{0,10}$/)
    const value = fc.oneof(fc.string(), fc.boolean(), fc.integer(), fc.array(fc.string(), { maxLength: 3 }))
    const body = fc.string().filter((b) => !b.startsWith("\n"))
    fc.assert(
      fc.property(fc.dictionary(key, value, { minKeys: 1, maxKeys: 5 }), body, (data, text) => {
        const fm = splitFrontmatter(`---\n${stringify(data)}---\n${text}`)
        expect(fm.error).toBeUndefined()
        expect(fm.data).toEqual(data)
        expect(fm.body).toBe(text)
      }),
    )
  })
})
