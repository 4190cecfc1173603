import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { Message } from "./message.js"
import { joinUserRuns } from "./turns.js"

const msg = (id: string, role: Message["role"], text: string): Message => ({
  id,
  role,
  ts: 0,
  content: [{ type: "text", text }],
})

describe("joinUserRuns", () => {
  it("joins consecutive user messages into the first, keeping every block in order", () => {
    const out = joinUserRuns([
      msg("u1", "user", "a"),
      msg("a1", "assistant", "b"),
      msg("u2", "user", "c"),
      msg("u3", "user", "d"),
    ])
    expect(out.map((m) => m.id)).toEqual(["u1", "a1", "u2"])
    expect(out[2]!.content).toEqual([
      { type: "text", text: "c" },
      { type: "text", text: "d" },
    ])
  })

  it("for any sequence: no two user messages in a row, and no block lost or reordered", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom<Message["role"]>("user", "assistant"), { maxLength: 12 }), (roles) => {
        const messages = roles.map((r, i) => msg(`m${i}`, r, `t${i}`))
        const out = joinUserRuns(messages)
        for (let i = 1; i < out.length; i++) expect(out[i]!.role === "user" && out[i - 1]!.role === "user").toBe(false)
        expect(out.flatMap((m) => m.content)).toEqual(messages.flatMap((m) => m.content))
      }),
    )
  })
})
