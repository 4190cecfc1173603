import { mkdtemp, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { InstructionTracker } from "../context/activate.js"
import { createContext } from "../context/prompt-context.js"
import { FileTracker } from "../history/file-tracker.js"
import { PromptBuilder } from "../prompt/builder.js"
import type { AgentEvent } from "./events.js"
import { runToolCalls } from "./tool-runner.js"

async function setup() {
  const cwd = await mkdtemp(join(tmpdir(), "pl-runner-"))
  await writeFile(join(cwd, "a.txt"), "alpha\n")
  const context = createContext({
    cwd,
    platform: { os: "Linux", shell: "/bin/sh", home: "/nonexistent" },
    date: "2026-11-29",
    model: { id: "claude-sonnet-4-5", provider: "anthropic" },
    interactive: false,
    tools: { rename: { read_file: "open_file" } },
  })
  const tools = new PromptBuilder().build(context).tools
  const events: AgentEvent[] = []
  const env = {
    context,
    tools,
    executor: { workspace: cwd },
    approve: "all" as const,
    instructions: new InstructionTracker(context),
    files: new FileTracker(cwd),
    now: () => 1,
    emit: (e: AgentEvent) => events.push(e),
    signal: new AbortController().signal,
  }
  return { cwd, env, events }
}

describe("runToolCalls", () => {
  it("maps a renamed tool back to its executor and records the read", async () => {
    const { env, events } = await setup()
    const round = await runToolCalls([{ type: "tool_use", id: "c1", name: "open_file", input: { path: "a.txt" } }], env)
    expect(round.results[0]).toMatchObject({ toolUseId: "c1" })
    expect(JSON.stringify(round.results[0]!.content)).toContain("alpha")
    expect(round.results[0]!.isError).toBeUndefined()
    expect(env.files.list().map((f) => f.path)).toEqual(["a.txt"])
    expect(events.map((e) => e.type)).toEqual(["tool_call", "tool_result"])
  })

  it("answers a call whose JSON arguments were invalid with an error that shows what was written", async () => {
    const { env } = await setup()
    const round = await runToolCalls([{ type: "tool_use", id: "c2", name: "open_file", input: {} }], {
      ...env,
      invalidArguments: new Map([["c2", '{"path": "a.txt",']]),
    })
    expect(round.results[0]!.isError).toBe(true)
    expect(round.results[0]!.content).toContain('{"path": "a.txt",')
    expect(env.files.list()).toEqual([])
  })

  it("answers an unknown tool by listing the tools there are", async () => {
    const { env } = await setup()
    const round = await runToolCalls([{ type: "tool_use", id: "c3", name: "read_file", input: { path: "a.txt" } }], env)
    expect(round.results[0]!.isError).toBe(true)
    expect(round.results[0]!.content).toContain("open_file")
  })

  it("refuses calls that need approval when nobody can give it", async () => {
    const { env, cwd } = await setup()
    const round = await runToolCalls(
      [{ type: "tool_use", id: "c4", name: "write_to_file", input: { path: "b.txt", content: "x" } }],
      { ...env, approve: "reads" },
    )
    expect(round.results[0]!.isError).toBe(true)
    expect(round.results[0]!.content).toContain("non-interactive")
    await expect(import("node:fs/promises").then((fs) => fs.readFile(join(cwd, "b.txt")))).rejects.toThrow()
  })
})
