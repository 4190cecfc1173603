import { mkdir, mkdtemp, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { gather } from "../context/gather.js"
import { EVERYTHING_SERVER } from "../context/test-helpers/workspace.js"
import { PromptBuilder } from "../prompt/builder.js"
import { parseReplayScript } from "../replay/script.js"
import { McpPool } from "./mcp-pool.js"
import { runReplayAgent } from "./test-helpers/replay-agent.js"

const cleanup: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c()
})

const SUM = "mcp__everything__get-sum"

describe.each(["native", "xml"] as const)("tool search in the agent loop (%s dialect)", (dialect) => {
  it("searches the deferred tools, is told when its arguments are wrong, then calls a real MCP tool", async () => {
    const cwd = await mkdtemp(join(tmpdir(), "pl-tool-search-"))
    const home = join(cwd, "home")
    await mkdir(home)
    await writeFile(
      join(cwd, ".mcp.json"),
      JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING_SERVER, "stdio"] } } }),
    )
    const gathered = await gather({
      cwd,
      home,
      trust: true,
      date: "2026-11-29",
      interactive: false,
      model: { id: "claude-sonnet-4-5", provider: "anthropic" },
    })
    const context = { ...gathered.context, toolCalling: dialect, tools: { search: { mode: "always" as const } } }
    const builder = new PromptBuilder()
    const built = builder.build(context)
    expect(built.deferredTools.map((t) => t.name)).toContain(SUM)
    expect(built.tools.map((t) => t.name)).not.toContain(SUM)

    const offered = { tools: ["search_tools", "call_tool"], dialect }
    const script = parseReplayScript({
      version: 1,
      turns: [
        { toolCalls: [{ name: "search_tools", input: { query: "add two numbers" } }], expect: offered },
        {
          toolCalls: [{ name: "call_tool", input: { name: SUM, arguments: { a: "two", b: 3 } } }],
          expect: { ...offered, toolResults: [{ tool: "search_tools", matches: `## ${SUM}` }] },
        },
        {
          toolCalls: [{ name: "call_tool", input: { name: SUM, arguments: { a: 2, b: 3 } } }],
          expect: { ...offered, toolResults: [{ tool: "call_tool", matches: "parameter 'a' must be number" }] },
        },
        {
          toolCalls: [{ name: "attempt_completion", input: { result: "5" } }],
          expect: { ...offered, toolResults: [{ tool: "call_tool", matches: "/sum of 2 and 3 is 5/" }] },
        },
      ],
    })
    const pool = new McpPool(gathered.mcpConfigs, context.cwd)
    cleanup.push(() => pool.close())
    const { result, events, server } = await runReplayAgent({
      context,
      builder,
      script,
      pool,
      session: { id: "ts", task: "Add." },
      maxTurns: 6,
    })
    cleanup.push(() => server.close())
    expect(server.divergences).toEqual([])
    expect(result.reason).toBe("completed")
    const results = events.filter((e) => e.type === "tool_result")
    expect(results.map((e) => (e as { isError: boolean }).isError)).toEqual([false, true, false, false])
    // Every request offered the same tools: the cached prefix never moved.
    const prompts = events.filter((e) => e.type === "prompt")
    expect(prompts).toHaveLength(1)
  })
})
