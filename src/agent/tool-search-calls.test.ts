import { mkdtemp, readFile, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { InstructionTracker } from "../context/activate.js"
import { createContext } from "../context/prompt-context.js"
import { FileTracker } from "../history/file-tracker.js"
import { PromptBuilder } from "../prompt/builder.js"
import { DeferredTools } from "../tools/search/deferred-tools.js"
import type { AgentEvent } from "./events.js"
import { runToolCalls } from "./tool-runner.js"

/** A build whose list_files and write_to_file are deferred (tool search always on, both opted in). */
async function setup() {
  const cwd = await mkdtemp(join(tmpdir(), "pl-search-calls-"))
  await writeFile(join(cwd, "a.txt"), "alpha\n")
  const context = createContext({
    cwd,
    platform: { os: "Linux", shell: "/bin/sh", home: "/nonexistent" },
    date: "2026-11-29",
    model: { id: "claude-sonnet-4-5", provider: "anthropic" },
    interactive: false,
    tools: { search: { mode: "always", defer: ["list_files", "write_to_file"] } },
  })
  const built = new PromptBuilder().build(context)
  const events: AgentEvent[] = []
  const env = {
    context,
    tools: built.tools,
    deferred: new DeferredTools(built.deferredTools),
    executor: { workspace: cwd },
    approve: "all" as const,
    instructions: new InstructionTracker(context),
    files: new FileTracker(cwd),
    now: () => 1,
    emit: (e: AgentEvent) => events.push(e),
    signal: new AbortController().signal,
  }
  return { cwd, env, events, built }
}

const use = (id: string, name: string, input: unknown) => ({ type: "tool_use" as const, id, name, input })

describe("tool search calls in the runner", () => {
  it("defers the opted-in built-ins and runs them through call_tool", async () => {
    const { env, built } = await setup()
    expect(built.deferredTools.map((t) => t.name)).toEqual(["write_to_file", "list_files"])
    const round = await runToolCalls([use("c1", "call_tool", { name: "list_files", arguments: { path: "." } })], env)
    expect(round.results[0]!.isError).toBeUndefined()
    expect(JSON.stringify(round.results[0]!.content)).toContain("a.txt")
  })

  it("runs a deferred tool called directly by its own name, after checking its arguments", async () => {
    const { env } = await setup()
    const ok = await runToolCalls([use("c2", "list_files", { path: "." })], env)
    expect(JSON.stringify(ok.results[0]!.content)).toContain("a.txt")
    const bad = await runToolCalls([use("c3", "list_files", { recursive: true })], env)
    expect(bad.results[0]!.isError).toBe(true)
    expect(bad.results[0]!.content).toContain("missing required parameter 'path'")
  })

  it("answers an unknown name with close matches, and a search without a query with what is missing", async () => {
    const { env } = await setup()
    const round = await runToolCalls(
      [use("c4", "call_tool", { name: "list_file", arguments: {} }), use("c5", "search_tools", {})],
      env,
    )
    expect(round.results[0]!.isError).toBe(true)
    expect(round.results[0]!.content).toContain('There is no tool named "list_file". Close matches: list_files')
    expect(round.results[1]!.content).toContain("missing required parameter 'query'")
    // A name that is neither loaded nor deferred points to the search tool.
    const unknown = await runToolCalls([use("c8", "mcp__nowhere__thing", {})], env)
    expect(unknown.results[0]!.content).toContain("More tools are found with search_tools.")
  })

  it("asks for approval with the kind of the tool that really runs, not the call tool's", async () => {
    const { env, cwd } = await setup()
    const round = await runToolCalls(
      [use("c6", "call_tool", { name: "write_to_file", arguments: { path: "b.txt", content: "x" } })],
      { ...env, approve: "reads" },
    )
    expect(round.results[0]!.content).toContain("non-interactive")
    await expect(readFile(join(cwd, "b.txt"))).rejects.toThrow()
    // A search runs nothing outside the process: it needs no approval even under `ask`.
    const search = await runToolCalls([use("c7", "search_tools", { query: "list the files of a folder" })], {
      ...env,
      approve: "ask",
    })
    expect(search.results[0]!.isError).toBeUndefined()
    expect(search.results[0]!.content).toContain("## list_files")
  })
})
