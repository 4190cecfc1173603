import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { gather } from "../gather.js"
import { cleanup, EVERYTHING_SERVER, tempDir, writeTree } from "../test-helpers/workspace.js"
import { toolsServer } from "./test-helpers.js"

let ws: string
let home: string
const model = { id: "m", provider: "p" }

beforeAll(async () => {
  ws = await tempDir()
  home = await tempDir("promptline-home-")
  const everything = { command: process.execPath, args: [EVERYTHING_SERVER, "stdio"] }
  await writeTree(ws, {
    ".promptline/mcp.json": JSON.stringify({ mcpServers: { everything: { ...everything, timeout: 20 } } }),
    ".mcp.json": JSON.stringify({
      mcpServers: {
        everything: { command: "promptline-no-such-command" },
        broken: { command: "promptline-no-such-command" },
      },
    }),
    ".cursor/mcp.json": "{ not json",
  })
  await writeTree(home, {
    ".config/promptline/mcp.json": JSON.stringify({ mcpServers: { mine: { command: "x", disabled: true } } }),
  })
})
afterAll(async () => {
  await cleanup(ws)
  await cleanup(home)
})

describe("gather with MCP servers", () => {
  it("connects to the configured servers and stores a snapshot; the first of a name wins", async () => {
    const { context, report, diagnostics } = await gather({ cwd: ws, home, env: {}, trust: true, model })
    expect(context.mcpServers.map((s) => s.name)).toEqual(["everything"])
    expect(context.mcpServers[0]?.tools.length).toBeGreaterThan(5)
    expect(report.mcpServers.map((e) => `${e.path} ${e.status} ${e.convention}`)).toEqual([
      "everything loaded promptline",
      "everything shadowed claude",
      "broken failed claude",
      "mine skipped promptline",
    ])
    expect(diagnostics.filter((d) => d.code.startsWith("mcp")).map((d) => [d.code, d.path])).toEqual([
      ["mcp-server-shadowed", ".mcp.json"],
      ["mcp-config-invalid", ".cursor/mcp.json"],
      ["mcp-server-failed", ".mcp.json"],
    ])
  })

  it("starts no project server in an untrusted workspace, listing each as skipped", async () => {
    const { context, report } = await gather({ cwd: ws, home, env: {}, trust: false, model })
    expect(context.mcpServers).toEqual([])
    expect(report.mcpServers.map((e) => `${e.path} ${e.status}`)).toEqual([
      "everything skipped",
      "everything skipped",
      "broken skipped",
      "mine skipped",
    ])
    expect(report.mcpServers[0]?.reason).toContain("not trusted")
  })

  it("lists servers without connecting when MCP is off", async () => {
    const { context, report } = await gather({ cwd: ws, home, env: {}, trust: true, model, mcp: false })
    expect(context.mcpServers).toEqual([])
    expect(report.mcpServers.find((e) => e.path === "everything")?.reason).toBe("MCP connections are switched off")
  })
})

describe("gather with a `timeout`-only entry in promptline's own file", () => {
  it("gives a server another file declares that time, and says so in its report line and its timeout", async () => {
    const dir = await tempDir()
    try {
      const silent = { command: process.execPath, args: ["-e", "setInterval(() => {}, 1000)"] }
      await writeTree(dir, {
        ".promptline/mcp.json": JSON.stringify({ mcpServers: { everything: { timeout: 20 }, slow: { timeout: 0.5 } } }),
        ".mcp.json": JSON.stringify({
          mcpServers: { everything: { command: process.execPath, args: [EVERYTHING_SERVER, "stdio"] }, slow: silent },
        }),
      })
      const { report, diagnostics } = await gather({ cwd: dir, home, env: {}, trust: true, model })
      const line = (name: string) => report.mcpServers.find((e) => e.path === name)
      expect(line("everything")).toMatchObject({ status: "loaded", convention: "claude" })
      expect(line("everything")?.detail).toMatch(/; from \.mcp\.json; timeout 20 s from \.promptline\/mcp\.json$/)
      expect(line("slow")?.status).toBe("failed")
      expect(diagnostics.find((d) => d.code === "mcp-server-timeout")?.message).toBe(
        "MCP server `slow`: no answer within 0.5 s. Raise its `timeout` setting (seconds) in .promptline/mcp.json.",
      )
      // No server named after the entries: they only set a time.
      expect(report.mcpServers.filter((e) => e.scope === "project" && e.convention === "promptline")).toEqual([])
    } finally {
      await cleanup(dir)
    }
  })
})

describe("gather with a server that lists a tool the context would reject", () => {
  it("still gathers: the bad tool is left out, a server with an empty name refused, each with a diagnostic", async () => {
    const dir = await tempDir()
    const emptyHome = await tempDir("promptline-home-")
    try {
      const odd = toolsServer([{ name: "", inputSchema: { type: "object" } }])
      const fine = toolsServer([{ name: "ok", inputSchema: { type: "object" } }])
      await writeTree(dir, { ".mcp.json": JSON.stringify({ mcpServers: { odd, "": fine } }) })
      const { context, report, diagnostics } = await gather({ cwd: dir, home: emptyHome, env: {}, trust: true, model })
      expect(context.mcpServers).toEqual([{ name: "odd", tools: [], resources: [], resourceTemplates: [] }])
      expect(report.mcpServers).toEqual([
        expect.objectContaining({ path: "odd", status: "loaded", reason: "1 invalid tool left out" }),
        expect.objectContaining({
          path: "",
          status: "failed",
          reason: expect.stringMatching(/^its snapshot is not valid \(name: /),
        }),
      ])
      expect(diagnostics.map((d) => [d.code, d.level])).toEqual([
        ["mcp-tool-invalid", "warning"],
        ["mcp-server-invalid", "error"],
      ])
    } finally {
      await cleanup(dir)
      await cleanup(emptyHome)
    }
  })
})
