import { execFileSync } from "node:child_process"
import { mkdir, mkdtemp, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { gather } from "../context/gather.js"
import type { McpServerConfig } from "../context/mcp/config.js"
import { processesRunning, shellScript, stdioConfig } from "../context/mcp/test-helpers.js"
import { EVERYTHING_SERVER } from "../context/test-helpers/workspace.js"
import { PromptBuilder } from "../prompt/builder.js"
import { parseReplayScript } from "../replay/script.js"
import { McpPool } from "./mcp-pool.js"
import { runReplayAgent } from "./test-helpers/replay-agent.js"

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
    const pool = new McpPool(gathered.mcpConfigs, context.cwd)
    cleanup.push(() => pool.close())
    const { result, events, server } = await runReplayAgent({
      context,
      builder,
      script,
      pool,
      session: { id: "mcp", task: "Echo." },
      maxTurns: 5,
    })
    cleanup.push(() => server.close())
    expect(server.divergences).toEqual([])
    expect(result.reason).toBe("completed")
    expect(events.find((e) => e.type === "tool_result")).toMatchObject({ isError: false })
  })
})

/** The process ids of the everything servers this test process started. */
function serverPids(): number[] {
  const lines = execFileSync("ps", ["-o", "pid=,args=", "--ppid", String(process.pid)], { encoding: "utf8" })
  return lines
    .split("\n")
    .filter((line) => line.includes(EVERYTHING_SERVER))
    .map((line) => Number(line.trim().split(/\s+/)[0]))
}

/** Kills a process and waits until it is gone. */
async function killAndWait(pid: number): Promise<void> {
  process.kill(pid, "SIGKILL")
  for (let i = 0; i < 250; i++) {
    try {
      process.kill(pid, 0)
    } catch {
      return
    }
    await new Promise((r) => setTimeout(r, 20))
  }
  throw new Error(`process ${pid} did not end`)
}

describe.runIf(process.platform === "linux")("McpPool after a server crash", () => {
  const config: McpServerConfig = {
    name: "everything",
    source: ".mcp.json",
    format: "claude",
    scope: "project",
    transport: "stdio",
    command: process.execPath,
    args: [EVERYTHING_SERVER, "stdio"],
    env: {},
    headers: {},
    disabled: false,
  }
  const signal = new AbortController().signal
  const text = (result: { content: { type: string; text?: string }[] }) => result.content[0]?.text

  it("reconnects on the next call when the server died between calls", async () => {
    const pool = new McpPool([config], tmpdir())
    cleanup.push(() => pool.close())
    expect(text(await pool.callTool("everything", "echo", { message: "one" }, { signal }))).toBe("Echo: one")
    const [first] = serverPids()
    expect(first).toBeGreaterThan(0)
    await killAndWait(first!)
    expect(text(await pool.callTool("everything", "echo", { message: "two" }, { signal }))).toBe("Echo: two")
    const now = serverPids()
    expect(now).toHaveLength(1)
    expect(now[0]).not.toBe(first)
  })

  it("fails the call that was out when the server died, and the next call reconnects", async () => {
    const pool = new McpPool([config], tmpdir())
    cleanup.push(() => pool.close())
    expect(text(await pool.callTool("everything", "echo", { message: "one" }, { signal }))).toBe("Echo: one")
    const [first] = serverPids()
    const long = pool
      .callTool("everything", "trigger-long-running-operation", { duration: 20, steps: 2 }, { signal })
      .catch((error: Error) => error)
    await new Promise((r) => setTimeout(r, 200))
    await killAndWait(first!)
    expect(await long).toBeInstanceOf(Error)
    expect(((await long) as Error).message).toMatch(/connection closed/i)
    expect(text(await pool.callTool("everything", "echo", { message: "two" }, { signal }))).toBe("Echo: two")
  })
})

describe.runIf(process.platform === "linux")("McpPool and the processes and environment of its servers", () => {
  const signal = new AbortController().signal

  it("stops a server's setsid grandchild when the pool closes", async () => {
    const dir = await mkdtemp(join(tmpdir(), "pl-mcp-pool-"))
    const script = await shellScript(dir, "wrapper.sh", 'setsid sleep 327 >/dev/null 2>&1 &\nexec "$@"')
    const pool = new McpPool([stdioConfig("wrapped", script, [process.execPath, EVERYTHING_SERVER, "stdio"])], dir)
    try {
      const echoed = await pool.callTool("wrapped", "echo", { message: "hi" }, { signal })
      expect(echoed.content[0]).toMatchObject({ text: "Echo: hi" })
      expect(processesRunning("sleep 327")).toHaveLength(1)
    } finally {
      await pool.close()
    }
    const left = processesRunning("sleep 327")
    for (const pid of left) process.kill(pid, "SIGKILL")
    expect(left).toEqual([])
  })

  it("gives a server no provider key nor a host-named secret unless its config passes it", async () => {
    const config = stdioConfig("everything", process.execPath, [EVERYTHING_SERVER, "stdio"], {
      env: { OPENAI_API_KEY: "passed-on-purpose" },
    })
    process.env.ANTHROPIC_API_KEY = "sk-ant-must-not-leak"
    process.env.OPENAI_API_KEY = "sk-oai-must-not-leak"
    const pool = new McpPool([config], tmpdir(), { secretEnv: ["HOME"] })
    try {
      const result = await pool.callTool("everything", "get-env", {}, { signal })
      const env = JSON.parse((result.content[0] as { text: string }).text) as Record<string, string>
      expect(env.ANTHROPIC_API_KEY).toBeUndefined()
      expect(env.OPENAI_API_KEY).toBe("passed-on-purpose")
      expect(env.HOME).toBeUndefined()
      expect(env.PATH).toBe(process.env.PATH)
    } finally {
      delete process.env.ANTHROPIC_API_KEY
      delete process.env.OPENAI_API_KEY
      await pool.close()
    }
  })
})

describe("McpPool and a server that does not answer", () => {
  it("waits the server's own timeout, then names the setting and its file", async () => {
    const dir = await mkdtemp(join(tmpdir(), "pl-mcp-pool-slow-"))
    const silent = stdioConfig("slow", process.execPath, ["-e", "setInterval(() => {}, 1000)"], {
      timeoutMs: 300,
      timeoutSource: ".promptline/mcp.json",
    })
    const pool = new McpPool([silent], dir)
    cleanup.push(() => pool.close())
    const error = await pool
      .callTool("slow", "anything", {}, { signal: new AbortController().signal })
      .catch((e: unknown) => e as Error & { code?: string })
    expect(error).toMatchObject({ code: "mcp-server-timeout" })
    expect((error as Error).message).toBe(
      "MCP server `slow`: no answer within 0.3 s. Raise its `timeout` setting (seconds) in .promptline/mcp.json.",
    )
  })
})
