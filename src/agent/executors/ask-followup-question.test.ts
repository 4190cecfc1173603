import { describe, expect, it } from "vitest"
import { execute } from "./index.js"

const env = { workspace: "." }
const call = (input: unknown) => ({ id: "c1", name: "ask_followup_question", input })

describe("ask_followup_question", () => {
  it("asks through the injected callback and returns the answer", async () => {
    const asked: unknown[] = []
    const out = await execute(call({ question: "Which port?", options: '["3000","8080"]' }), {
      ...env,
      ask: async (question, options) => {
        asked.push({ question, options })
        return "8080"
      },
    })
    expect(asked).toEqual([{ question: "Which port?", options: ["3000", "8080"] }])
    expect(out).toMatchObject({ isError: false, content: "<answer>\n8080\n</answer>", summary: 'asked "Which port?"' })
  })

  it("is an error result when the session is not interactive, even with a callback", async () => {
    let called = false
    const out = await execute(call({ question: "Which port?" }), {
      ...env,
      interactive: false,
      ask: async () => {
        called = true
        return "x"
      },
    })
    expect(called).toBe(false)
    expect(out.isError).toBe(true)
    expect(out.content).toContain("Make a reasonable assumption")
  })

  it("is an error result without a callback, and when the callback fails", async () => {
    expect((await execute(call({ question: "q" }), env)).isError).toBe(true)
    const failed = await execute(call({ question: "q" }), {
      ...env,
      ask: async () => {
        throw new Error("the user closed the prompt")
      },
    })
    expect(failed.content).toBe("The question was not answered: the user closed the prompt")
  })

  it("rejects options that are not a list of strings", async () => {
    const out = await execute(call({ question: "q", options: "pick one" }), { ...env, ask: async () => "a" })
    expect(out.content).toBe(
      "Invalid arguments for ask_followup_question: parameter 'options': expected a list of strings.",
    )
  })
})
