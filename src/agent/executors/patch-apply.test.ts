import { describe, expect, it } from "vitest"
import { applyChunks } from "./patch-apply.js"

const file = ["def a():", "    return 1", "", "def b():", "    return 1", ""].join("\n")

describe("applyChunks", () => {
  it("replaces the lines of a hunk, placed after its @@ anchor", () => {
    const r = applyChunks(file, [{ anchors: ["def b():"], old: ["    return 1"], new: ["    return 2"], atEnd: false }])
    expect(r).toEqual({ text: "def a():\n    return 1\n\ndef b():\n    return 2\n" })
  })

  it("places hunks in order, each after the previous one", () => {
    const r = applyChunks(file, [
      { anchors: [], old: ["    return 1"], new: ["    return 10"], atEnd: false },
      { anchors: [], old: ["    return 1"], new: ["    return 20"], atEnd: false },
    ])
    expect(r).toEqual({ text: "def a():\n    return 10\n\ndef b():\n    return 20\n" })
  })

  it("tolerates trailing spaces, surrounding spaces and typographic punctuation", () => {
    const text = "say(\u201Chi\u201D) \u2014 done   \n"
    const r = applyChunks(text, [{ anchors: [], old: ['  say("hi") - done'], new: ['say("bye")'], atEnd: false }])
    expect(r).toEqual({ text: 'say("bye")\n' })
  })

  it("matches an end-of-file hunk at the end even when the lines repeat earlier", () => {
    const r = applyChunks("x\ny\nx\n", [{ anchors: [], old: ["x"], new: ["z"], atEnd: true }])
    expect(r).toEqual({ text: "x\ny\nz\n" })
  })

  it("inserts a hunk with no old lines after its anchor, or at the end without one", () => {
    expect(applyChunks("a\nb\n", [{ anchors: ["a"], old: [], new: ["inserted"], atEnd: false }])).toEqual({
      text: "a\ninserted\nb\n",
    })
    expect(applyChunks("a\nb\n", [{ anchors: [], old: [], new: ["last"], atEnd: false }])).toEqual({
      text: "a\nb\nlast\n",
    })
  })

  it("drops a trailing blank context line the file does not have", () => {
    const r = applyChunks("a\nb", [{ anchors: [], old: ["b", ""], new: ["c", ""], atEnd: false }])
    expect(r).toEqual({ text: "a\nc\n" })
  })

  it("names the hunk that does not match, and the missing anchor", () => {
    const r = applyChunks(file, [
      { anchors: [], old: ["    return 1"], new: ["    return 0"], atEnd: false },
      { anchors: [], old: ["    return 42"], new: ["x"], atEnd: false },
    ])
    expect(r).toEqual({ error: 'hunk 2 (starting "return 42") does not match the file\'s lines' })
    const anchor = applyChunks(file, [{ anchors: ["def zzz():"], old: ["x"], new: ["y"], atEnd: false }])
    expect(anchor).toEqual({ error: 'hunk 1: the context line "@@ def zzz():" is not in the file' })
  })
})
