import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { postProcess, postProcessPieces } from "./post-process.js"

describe("postProcess", () => {
  it("collapses blank runs, drops empty headings and separators, trims", () => {
    const input = "\n\n# Title\n\nText.\n\n\n\n## Empty\n\n## Full\nbody\n\n====\n\n====\n\n# Last empty\n\n"
    expect(postProcess(input)).toBe("# Title\n\nText.\n\n## Full\nbody")
  })

  it("drops nested empty headings up to a fixpoint", () => {
    expect(postProcess("# A\n## B\n### C\n# D\ntext")).toBe("# D\ntext")
  })

  it("keeps a heading whose content is a deeper heading with text", () => {
    expect(postProcess("# A\n## B\ntext")).toBe("# A\n## B\ntext")
  })

  it("never touches fenced code", () => {
    const code = "```md\n# not a heading\n\n\n\n====\n```"
    expect(postProcess(`# Code\n\n${code}\n\n\n`)).toBe(`# Code\n\n${code}`)
  })

  it("never touches a SEARCH/REPLACE example, even with blank runs and separators inside", () => {
    const diff = "<<<<<<< SEARCH\na\n\n\n\nb\n=======\n# c\n\n\n>>>>>>> REPLACE"
    expect(postProcess(`# Edit\n${diff}`)).toBe(`# Edit\n${diff}`)
  })

  it("keeps data pieces byte for byte, blank lines inside them included", () => {
    const data = "line 1\n\n\n\nline 2\n## heading from a file"
    const out = postProcessPieces([
      { text: "# Section\n\n\n\n", verbatim: false },
      { text: data, verbatim: true },
      { text: "\n\n\n\n## Empty heading\n", verbatim: false },
    ])
    expect(out).toBe(`# Section\n\n${data}`)
  })

  const line = fc.oneof(
    fc.constantFrom(
      "",
      " ",
      "# H1",
      "## H2",
      "### H3",
      "====",
      "---",
      "```",
      "~~~",
      "text",
      "<<<<<<< SEARCH",
      "=======",
      ">>>>>>> REPLACE",
    ),
    fc.string({ maxLength: 8 }),
  )
  const doc = fc.array(line, { maxLength: 40 }).map((lines) => lines.join("\n"))

  it("is idempotent (property)", () => {
    fc.assert(
      fc.property(doc, (text) => postProcess(postProcess(text)) === postProcess(text)),
      { numRuns: 2000 },
    )
  })

  it("is idempotent over pieces once joined (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.record({ text: doc, verbatim: fc.boolean() }), { maxLength: 5 }), (pieces) => {
        const once = postProcessPieces(pieces)
        return postProcess(once) === postProcess(postProcess(once))
      }),
      { numRuns: 500 },
    )
  })

  it("keeps the inside of every closed fence unchanged (property)", () => {
    fc.assert(
      fc.property(doc, doc, doc, (before, inside, after) => {
        // Text around the fence holds no fences or diff markers of its own, so the fence is one block.
        const plain = (t: string) => t.replace(/^ {0,3}(`{3,}|~{3,})|^(<{7}|-{7}) SEARCH/gm, "x")
        const fenced = `\`\`\`\n${plain(inside)}\n\`\`\``
        return postProcess(`${plain(before)}\n\n# Code\n${fenced}\n\n${plain(after)}`).includes(fenced)
      }),
      { numRuns: 500 },
    )
  })
})
