import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { applyEditBlocks, parseEditBlocks } from "./search-replace.js"

const block = (search: string, replace: string) => `<<<<<<< SEARCH\n${search}\n=======\n${replace}\n>>>>>>> REPLACE`

describe("parseEditBlocks", () => {
  it("parses several blocks and ignores text around them", () => {
    const diff = `Here is the change:\n${block("a", "b")}\nand\n${block("c\nd", "")}\n`
    const { blocks, errors } = parseEditBlocks(diff)
    expect(errors).toEqual([])
    expect(blocks).toEqual([
      { index: 1, search: "a", replace: "b" },
      { index: 2, search: "c\nd", replace: "" },
    ])
  })

  it("accepts the ------- SEARCH / +++++++ REPLACE spelling and CRLF", () => {
    const { blocks } = parseEditBlocks("------- SEARCH\r\nold\r\n=======\r\nnew\r\n+++++++ REPLACE\r\n")
    expect(blocks).toEqual([{ index: 1, search: "old", replace: "new" }])
  })

  it("accepts a last block missing only its REPLACE marker", () => {
    expect(parseEditBlocks("<<<<<<< SEARCH\nx\n=======\ny").blocks).toEqual([{ index: 1, search: "x", replace: "y" }])
  })

  it("reports a block without a divider", () => {
    const { errors } = parseEditBlocks("<<<<<<< SEARCH\nx\n>>>>>>> REPLACE\n")
    expect(errors[0]).toContain("block 1")
  })
})

describe("applyEditBlocks", () => {
  const text = "function a() {\n  return 1\n}\n\nfunction b() {\n  return 2\n}\n"

  it("applies an exact match", () => {
    const r = applyEditBlocks(text, [{ index: 1, search: "  return 2", replace: "  return 3" }])
    expect(r.text).toBe(text.replace("return 2", "return 3"))
    expect(r.results[0]).toMatchObject({ ok: true, strategy: "exact", startLine: 6, endLine: 6 })
  })

  it("falls back to line-trimmed matching when indentation differs", () => {
    const r = applyEditBlocks(text, [{ index: 1, search: "function b() {\nreturn 2\n}", replace: "const b = () => 2" }])
    expect(r.text).toBe("function a() {\n  return 1\n}\n\nconst b = () => 2\n")
    expect(r.results[0]).toMatchObject({ ok: true, strategy: "trimmed" })
  })

  it("falls back to a unique first/last-line anchor when the middle drifted", () => {
    const r = applyEditBlocks(text, [
      { index: 1, search: "function b() {\n  return 999\n}", replace: "function b() {\n  return 4\n}" },
    ])
    expect(r.text).toContain("return 4")
    expect(r.results[0]).toMatchObject({ ok: true, strategy: "anchor" })
  })

  it("refuses an anchor that matches more than one place", () => {
    const twin = "if (x) {\n  a()\n}\nif (x) {\n  b()\n}\n"
    const r = applyEditBlocks(twin, [{ index: 1, search: "if (x) {\n  c()\n}", replace: "" }])
    expect(r.results[0]).toMatchObject({ ok: false })
    expect(r.text).toBe(twin)
  })

  it("keeps going after a failing block and names it", () => {
    const r = applyEditBlocks(text, [
      { index: 1, search: "return 1", replace: "return 10" },
      { index: 2, search: "no such line", replace: "x" },
      { index: 3, search: "return 2", replace: "return 20" },
    ])
    expect(r.text).toContain("return 10")
    expect(r.text).toContain("return 20")
    expect(r.results.map((x) => x.ok)).toEqual([true, false, true])
    expect(r.results[1]).toMatchObject({ index: 2, firstLine: "no such line" })
  })

  it("prefers the occurrence after the previous edit when the text repeats", () => {
    const twice = "x = 1\ny = 2\nx = 1\n"
    const r = applyEditBlocks(twice, [
      { index: 1, search: "y = 2", replace: "y = 3" },
      { index: 2, search: "x = 1", replace: "x = 9" },
    ])
    expect(r.text).toBe("x = 1\ny = 3\nx = 9\n")
  })

  it("fills an empty file from a block with an empty SEARCH part, and refuses one on a non-empty file", () => {
    expect(applyEditBlocks("", [{ index: 1, search: "", replace: "new\n" }]).text).toBe("new\n")
    expect(applyEditBlocks("old", [{ index: 1, search: "", replace: "new" }]).results[0]?.ok).toBe(false)
  })

  it("an exact block applied to text that contains it gives the same result as String.replace", () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.string({ minLength: 1 }).filter((s) => s.trim() !== ""),
        fc.string(),
        fc.string(),
        (pre, mid, post, rep) => {
          const source = pre + mid + post
          const r = applyEditBlocks(source, [{ index: 1, search: mid, replace: rep }])
          expect(r.results[0]?.ok).toBe(true)
          if (r.results[0]?.ok && r.results[0].strategy === "exact") expect(r.text).toBe(source.replace(mid, () => rep))
        },
      ),
    )
  })
})
