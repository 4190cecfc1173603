import { mkdir, mkdtemp, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { gather } from "../context/gather.js"
import { EVERYTHING_SERVER } from "../context/test-helpers/workspace.js"
import { ContextManager } from "../history/context-manager.js"
import { PromptBuilder } from "../prompt/builder.js"
import type { AgentEvent } from "./events.js"
import { Agent } from "./loop.js"
import { McpPool } from "./mcp-pool.js"
import { parseReplayScript } from "./replay/script.js"
import { type ReplayServer, startReplayServer } from "./replay/server.js"
import { Session } from "./session.js"
import { endpointFor } from "./transport/endpoints.js"
import { send } from "./transport/http.js"

const cleanup: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c()
})

describe("MCP tools in the agent loop", () => {
  it("calls a real MCP server's tool through the pool and gets its answer back to the model", async () => {
    const cwd = await mkdtemp(join(tmpdir(), "pl-mcp-agent-"))
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
    const context = gathered.context
    const builder = new PromptBuilder()
    const echo = builder.build(context).tools.find((t) => t.mcp?.server === "everything" && t.mcp.tool === "echo")
    expect(echo).toBeDefined()

    const script = parseReplayScript({
      version: 1,
      turns: [
        { toolCalls: [{ name: echo!.name, input: { message: "hello from the loop" } }] },
        {
          toolCalls: [{ name: "attempt_completion", input: { result: "echoed" } }],
          expect: { toolResults: [{ matches: "hello from the loop" }] },
        },
      ],
    })
    const server: ReplayServer = await startReplayServer({ script })
    const pool = new McpPool(gathered.mcpConfigs, context.cwd)
    cleanup.push(
      () => server.close(),
      () => pool.close(),
    )
    const endpoint = endpointFor({ provider: "anthropic", env: {}, baseUrl: server.urls.anthropic, apiKey: "replay" })
    const events: AgentEvent[] = []
    let clock = 0
    const agent = new Agent({
      context,
      builder,
      manager: await ContextManager.create(),
      send: (r) => send(endpoint, { format: r.format, body: r.body, model: r.model.id, signal: r.signal }),
      session: await Session.create(cwd, {
        id: "mcp",
        created: 0,
        cwd,
        model: "m",
        provider: "anthropic",
        task: "Echo.",
      }),
      approve: "all",
      maxTurns: 5,
      now: () => ++clock,
      today: () => "2026-11-29",
      executor: { mcp: pool },
      onEvent: (e) => events.push(e),
    })
    const result = await agent.run()
    expect(server.divergences).toEqual([])
    expect(result.reason).toBe("completed")
    expect(events.find((e) => e.type === "tool_result")).toMatchObject({ isError: false })
  })
})
