import { describe, expect, it } from "vitest"
import { EXECUTORS, execute, hasExecutor } from "./index.js"
import { tempWorkspace, textOf } from "./test-helpers/workspace.js"

/** The built-in tool ids agreed across promptline (tool catalog, XML parser, replay server). */
const AGREED = [
  "execute_command",
  "read_file",
  "write_to_file",
  "replace_in_file",
  "apply_patch",
  "search_files",
  "list_files",
  "list_code_definition_names",
  "web_fetch",
  "web_search",
  "use_mcp_tool",
  "access_mcp_resource",
  "ask_followup_question",
  "attempt_completion",
  "new_task",
  "plan_mode_respond",
  "act_mode_respond",
  "use_skill",
]

describe("the executor registry", () => {
  it("has an executor for every agreed tool id except the host-provided ones", () => {
    expect(Object.keys(EXECUTORS).sort()).toEqual([...AGREED].sort())
    for (const id of AGREED) expect(EXECUTORS[id]?.id).toBe(id)
    expect(hasExecutor("browser_action")).toBe(false)
    expect(hasExecutor("use_subagents")).toBe(false)
    expect(hasExecutor("toString")).toBe(false)
  })
})

describe("execute", () => {
  it("returns an error result for an unknown tool", async () => {
    const out = await execute({ id: "1", name: "rm_rf", input: {} }, { workspace: "." })
    expect(out).toMatchObject({
      isError: true,
      content: 'There is no tool named "rm_rf" in this runtime.',
      touched: [],
    })
  })

  it("names every missing or mistyped parameter and never throws", async () => {
    const out = await execute({ id: "1", name: "read_file", input: { start_line: "ten" } }, { workspace: "." })
    expect(out).toMatchObject({ isError: true, summary: "read_file: invalid arguments" })
    expect(out.content).toBe(
      "Invalid arguments for read_file: missing required parameter 'path'; parameter 'start_line': expected a whole number.",
    )
    for (const input of [null, undefined, "text", 42, [1, 2]]) {
      const r = await execute({ id: "1", name: "write_to_file", input }, { workspace: "." })
      expect(r.isError).toBe(true)
      expect(typeof r.content).toBe("string")
    }
  })

  it("ignores parameters it does not know, such as task_progress", async () => {
    const ws = await tempWorkspace()
    try {
      await ws.write("a.txt", "a\n")
      const out = await ws.run("read_file", { path: "a.txt", task_progress: "- [x] read", extra: 1 })
      expect(out.isError).toBe(false)
    } finally {
      await ws.dispose()
    }
  })

  it("does not start a call that was already cancelled", async () => {
    const controller = new AbortController()
    controller.abort()
    const out = await execute(
      { id: "1", name: "execute_command", input: { command: "touch should-not-exist" } },
      { workspace: ".", signal: controller.signal },
    )
    expect(out).toMatchObject({ isError: true, summary: "execute_command: cancelled" })
  })

  it("reports a command that cannot start because the workspace vanished", async () => {
    const ws = await tempWorkspace()
    try {
      // A workspace that vanished: the command cannot even start.
      await ws.dispose()
      const out = await execute(
        { id: "1", name: "execute_command", input: { command: "true" } },
        { workspace: ws.root },
      )
      expect(out.isError).toBe(true)
      expect(textOf(out)).toContain("could not be started")
    } finally {
      await ws.dispose()
    }
  })
})
