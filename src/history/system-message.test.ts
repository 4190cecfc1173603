import { describe, expect, it } from "vitest"
import { dedupFileReads } from "./dedup.js"
import { parseHistory } from "./history-file.js"
import type { Message, Role } from "./message.js"
import { TokenCounter } from "./tokens.js"
import { instructionsIn, plannedCut } from "./truncate.js"

const msg = (id: string, role: Role, text: string): Message => ({ id, role, content: [{ type: "text", text }], ts: 0 })

describe("system messages in the history", () => {
  it("are read from a history file", () => {
    const raw = JSON.stringify([msg("u", "user", "Hi"), msg("s", "system", "Mode: act.")])
    expect(parseHistory(raw, "h.json").map((m) => m.role)).toEqual(["user", "system"])
  })

  it("are no turn at a truncation seam: the turns on each side must still alternate", () => {
    const view = [
      msg("u0", "user", "task"),
      msg("a0", "assistant", "ok"),
      msg("u1", "user", "one"),
      msg("s1", "system", "note"),
      msg("a1", "assistant", "two"),
      msg("u2", "user", "three"),
      msg("a2", "assistant", "four"),
      msg("u3", "user", "five"),
    ]
    for (const strategy of ["half", "quarter", "lastTwo", "none"] as const) {
      const cut = plannedCut(view, strategy)
      if (!cut) continue
      // Cutting u1 alone would leave a0, s1, a1: two assistant turns with only a system message between.
      const kept = [...view.slice(0, cut.start), ...view.slice(cut.end + 1)].filter((m) => m.role !== "system")
      for (let i = 1; i < kept.length; i++) expect(kept[i]!.role, strategy).not.toBe(kept[i - 1]!.role)
    }
  })

  it("carry instructions that a cut re-injects", () => {
    const text = '<instructions base="src">Use tabs.</instructions>'
    expect(instructionsIn([msg("s", "system", text)])).toEqual([text])
  })

  it("are deduplicated like any text: an older file copy in a system message is replaced", () => {
    const copy = '<file_content path="a.ts">\nconst a = 1\n</file_content>'
    const view = [msg("s", "system", copy), msg("a", "assistant", "ok"), msg("u", "user", copy)]
    const edits = dedupFileReads(view, { now: 1 })
    expect(edits.map((e) => e.messageId)).toEqual(["s"])
  })

  it("are counted like any message", async () => {
    const counter = await TokenCounter.create()
    const overhead = { message: 4, request: 4, tool: 12, toolsPreamble: 0, toolBlock: 8, image: 1600 }
    const system = counter.countMessage(msg("s", "system", "Mode: act."), "o200k", overhead)
    const user = counter.countMessage(msg("u", "user", "Mode: act."), "o200k", overhead)
    expect(system).toBe(user)
  })
})
