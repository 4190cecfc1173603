import { describe, expect, it } from "vitest"
import { execute } from "./index.js"

const run = (name: string, input: unknown) => execute({ id: "c1", name, input }, { workspace: "." })

describe("the control tools hand their payload to the loop", () => {
  it("attempt_completion", async () => {
    const out = await run("attempt_completion", { result: "Fixed the failing test.", command: "npm test" })
    expect(out).toMatchObject({
      isError: false,
      summary: "completed: Fixed the failing test.",
      control: { type: "completion", result: "Fixed the failing test.", command: "npm test" },
    })
    expect((await run("attempt_completion", { result: "Done" })).control).toEqual({
      type: "completion",
      result: "Done",
    })
  })

  it("plan_mode_respond, with needs_more_exploration as a boolean or as text", async () => {
    expect((await run("plan_mode_respond", { response: "Plan: …" })).control).toEqual({
      type: "plan_response",
      response: "Plan: …",
      needsMoreExploration: false,
    })
    const more = await run("plan_mode_respond", { response: "Looking further", needs_more_exploration: "true" })
    expect(more.control).toMatchObject({ needsMoreExploration: true })
    expect(more.content).toContain("continue exploring")
  })

  it("act_mode_respond", async () => {
    expect((await run("act_mode_respond", { response: "Halfway there" })).control).toEqual({
      type: "act_response",
      response: "Halfway there",
    })
  })

  it("new_task", async () => {
    expect((await run("new_task", { context: "Continue with step 2" })).control).toEqual({
      type: "new_task",
      context: "Continue with step 2",
    })
  })

  it("rejects empty payloads by parameter name", async () => {
    expect((await run("attempt_completion", { result: "  " })).content).toBe(
      "Invalid arguments for attempt_completion: parameter 'result': must not be empty.",
    )
    expect((await run("new_task", {})).content).toBe(
      "Invalid arguments for new_task: missing required parameter 'context'.",
    )
  })
})
