import { describe, expect, it } from "vitest"
import { compactionRange, filesTouched, parseSummary, renderSummary } from "./compact.js"
import type { Message } from "./message.js"

const alternating = (n: number): Message[] =>
  Array.from({ length: n }, (_, i) => ({
    id: `m${i}`,
    role: i % 2 === 0 ? "user" : "assistant",
    ts: i,
    content: i % 2 ? [{ type: "tool_use", id: `t${i}`, name: "read_file", input: { path: `f${i % 3}.ts` } }] : [],
  }))

describe("compaction", () => {
  it("parses and renders the fixed structure, filling absent sections", () => {
    const s = parseSummary(
      "Intro line.\n## Goal\nShip it.\n## Decisions\n- use zod\n* keep it pure\n## Unknown\n- x\n## Next steps\n- test\n## Last error\nnone",
    )
    expect(s.progress).toEqual(["Intro line.", "Ship it."])
    expect(s.decisions).toEqual(["use zod", "keep it pure", "Unknown", "x"])
    expect(s.openItems).toEqual(["test"])
    expect(s.lastError).toBe("")
    const text = renderSummary({ ...s, task: "Do it.", decisions: ["use zod"] })
    expect(text.split("\n").filter((l) => l.startsWith("## "))).toEqual([
      "## Task (verbatim)",
      "## Constraints",
      "## Progress",
      "## Decisions",
      "## Files",
      "## Open items",
      "## Last error",
    ])
    expect(text).toContain("## Task (verbatim)\nDo it.")
    expect(text).toContain("## Constraints\n- (none)")
    expect(parseSummary(text).task).toBe("Do it.")
  })

  it("condenses what lies between the head and a tail that starts with an assistant message", () => {
    const view = alternating(20)
    const range = compactionRange(view, 4)!
    expect(range.start).toBe(2)
    expect(view[range.end + 1]!.role).toBe("assistant")
    expect(20 - (range.end + 1)).toBeGreaterThanOrEqual(4)
    expect(compactionRange(alternating(3), 4)).toBeUndefined()
  })

  it("lists the files the condensed calls touched, once each", () => {
    expect(filesTouched(alternating(10))).toEqual(["f1.ts", "f0.ts", "f2.ts"])
  })
})
