import { describe, expect, it } from "vitest"
import { parsePatch } from "./patch-parse.js"

describe("parsePatch", () => {
  it("parses add, delete, update with move, anchors and end-of-file markers", () => {
    const patch = [
      "*** Begin Patch",
      "*** Add File: docs/new.md",
      "+# Title",
      "+",
      "+text",
      "*** Delete File: old.txt",
      "*** Update File: src/app.py",
      "*** Move to: src/main.py",
      "@@ class App:",
      "@@     def run(self):",
      "-        print('hi')",
      "+        print('hello')",
      "@@",
      " tail",
      "+added at end",
      "*** End of File",
      "*** End Patch",
    ].join("\n")
    const parsed = parsePatch(patch)
    expect(parsed).toEqual({
      ops: [
        { type: "add", path: "docs/new.md", lines: ["# Title", "", "text"] },
        { type: "delete", path: "old.txt" },
        {
          type: "update",
          path: "src/app.py",
          moveTo: "src/main.py",
          chunks: [
            {
              anchors: ["class App:", "def run(self):"],
              old: ["        print('hi')"],
              new: ["        print('hello')"],
              atEnd: false,
            },
            { anchors: [], old: ["tail"], new: ["tail", "added at end"], atEnd: true },
          ],
        },
      ],
    })
  })

  it("lets the first hunk of a file leave out its @@ line", () => {
    const parsed = parsePatch("*** Begin Patch\n*** Update File: a.txt\n-x\n+y\n*** End Patch")
    expect(parsed).toEqual({
      ops: [{ type: "update", path: "a.txt", chunks: [{ anchors: [], old: ["x"], new: ["y"], atEnd: false }] }],
    })
  })

  it("unwraps a shell heredoc and tolerates CRLF and surrounding blank lines", () => {
    const parsed = parsePatch(
      "\napply_patch <<'EOF'\r\n*** Begin Patch\r\n*** Delete File: a\r\n*** End Patch\r\nEOF\n\n",
    )
    expect(parsed).toEqual({ ops: [{ type: "delete", path: "a" }] })
  })

  it.each([
    ["missing begin", "*** Update File: a\n*** End Patch", 1, "starts with"],
    ["missing end (cut short)", "*** Begin Patch\n*** Delete File: a", 2, "ends with"],
    ["a stray line", "*** Begin Patch\nhello\n*** End Patch", 2, "expected"],
    ["an added line without +", "*** Begin Patch\n*** Add File: a\nplain\n*** End Patch", 3, 'starts with "+"'],
    ["an update without hunks", "*** Begin Patch\n*** Update File: a\n*** End Patch", 2, "no hunks"],
    ["a bad hunk line", "*** Begin Patch\n*** Update File: a\n@@\n?x\n*** End Patch", 4, "hunk line"],
    ["an empty hunk", "*** Begin Patch\n*** Update File: a\n@@\n*** End Patch", 3, "no lines"],
    ["no operations", "*** Begin Patch\n*** End Patch", 1, "no file operations"],
  ])("reports %s with its line", (_, text, line, message) => {
    const parsed = parsePatch(text)
    expect("error" in parsed).toBe(true)
    if ("error" in parsed) {
      expect(parsed.error.line).toBe(line)
      expect(parsed.error.message).toContain(message)
    }
  })
})
