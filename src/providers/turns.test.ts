import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { CONTINUATION_TEXT, repairTurns, type TurnRules } from "./turns.js"

type M = { role: "system" | "user" | "assistant" | "tool"; text: string }

const rules = (strict: boolean): TurnRules<M> => ({
  roleOf: (m) => (m.role === "user" || m.role === "assistant" ? m.role : "other"),
  userTurn: (text) => ({ role: "user", text }),
  ...(strict ? { merge: (a: M, b: M) => ({ role: a.role, text: `${a.text}+${b.text}` }) } : {}),
  userFirst: strict,
})

describe("repairTurns", () => {
  it("merges same-role turns and puts a user turn after the system messages, before a leading assistant", () => {
    const messages: M[] = [
      { role: "system", text: "s" },
      { role: "assistant", text: "a1" },
      { role: "assistant", text: "a2" },
      { role: "tool", text: "t" },
      { role: "user", text: "u" },
    ]
    const { messages: out, diagnostics } = repairTurns(messages, rules(true))
    expect(out).toEqual([
      { role: "system", text: "s" },
      { role: "user", text: CONTINUATION_TEXT },
      { role: "assistant", text: "a1+a2" },
      { role: "tool", text: "t" },
      { role: "user", text: "u" },
    ])
    expect(diagnostics.map((d) => d.code)).toEqual(["messages-merged", "user-turn-inserted"])
    expect(messages).toHaveLength(5)
  })

  it("leaves any order alone without merge or userFirst, but never sends no turn at all", () => {
    const messages: M[] = [
      { role: "assistant", text: "a" },
      { role: "assistant", text: "b" },
    ]
    expect(repairTurns(messages, rules(false))).toEqual({ messages, diagnostics: [] })
    const system: M[] = [{ role: "system", text: "s" }]
    expect(repairTurns(system, rules(false)).messages).toEqual([...system, { role: "user", text: CONTINUATION_TEXT }])
  })

  it("for any sequence with both repairs: turns alternate, the user starts, nothing is lost", () => {
    const role = fc.constantFrom<M["role"]>("system", "user", "assistant", "tool")
    fc.assert(
      fc.property(fc.array(fc.record({ role, text: fc.constantFrom("x", "y") }), { maxLength: 10 }), (messages) => {
        const { messages: out } = repairTurns(messages, rules(true))
        const turns = out.filter((m) => m.role === "user" || m.role === "assistant")
        expect(turns[0]?.role).toBe("user")
        for (let i = 1; i < out.length; i++)
          if (out[i]!.role === "user" || out[i]!.role === "assistant") expect(out[i]!.role).not.toBe(out[i - 1]!.role)
        const letters = (ms: M[]) =>
          ms
            .map((m) => m.text.replaceAll(CONTINUATION_TEXT, ""))
            .join("")
            .replaceAll("+", "")
        expect(letters(out)).toBe(letters(messages))
      }),
    )
  })
})
