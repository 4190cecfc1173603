import { readFile, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { cleanup, EVERYTHING_SERVER, tempDir } from "../test-helpers/workspace.js"
import { snapshotServers } from "./snapshot.js"
import { alive, eventually, stdioConfig, toolsServer } from "./test-helpers.js"

let dir: string
beforeEach(async () => {
  dir = await tempDir()
})
afterEach(async () => {
  await cleanup(dir)
})

/** A stdio "server" that records its pid and then never answers. */
function silent(name: string) {
  const pidFile = join(dir, `${name}.pid`)
  const script = `require("fs").writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setInterval(() => {}, 1000)`
  return { config: stdioConfig(name, process.execPath, ["-e", script]), pidFile }
}

describe("snapshotServers", () => {
  it("keeps the servers that answer, reports the rest, and sorts servers by name", async () => {
    const hang = silent("hang")
    const result = await snapshotServers(
      [
        stdioConfig("zeta", process.execPath, [EVERYTHING_SERVER, "stdio"]),
        { ...hang.config, timeoutMs: 1500 },
        stdioConfig("missing", "promptline-no-such-command", []),
        stdioConfig("crash", process.execPath, ["-e", "console.error('token expired'); process.exit(1)"]),
        stdioConfig("off", "promptline-no-such-command", [], { disabled: true }),
        stdioConfig("alpha", process.execPath, [EVERYTHING_SERVER, "stdio"]),
      ],
      // Generous for the real servers on a busy machine; the silent one has its own short limit.
      { cwd: dir, timeoutMs: 30_000 },
    )
    expect(result.servers.map((s) => s.name)).toEqual(["alpha", "zeta"])
    expect(result.entries.map((e) => `${e.path} ${e.status}`)).toEqual([
      "zeta loaded",
      "hang failed",
      "missing failed",
      "crash failed",
      "off skipped",
      "alpha loaded",
    ])
    expect(result.entries[0]?.detail).toMatch(/^\d+ tools, \d+ resources, \d+ resource templates; from \.mcp\.json$/)
    expect(result.diagnostics.map((d) => [d.code, d.level, d.path])).toEqual([
      ["mcp-server-timeout", "error", ".mcp.json"],
      ["mcp-server-failed", "error", ".mcp.json"],
      ["mcp-server-failed", "error", ".mcp.json"],
    ])
    expect(result.diagnostics[0]?.message).toBe(
      "MCP server `hang`: no answer within 1.5 s. Raise its `timeout` setting (seconds) in .mcp.json.",
    )
    expect(result.diagnostics[2]?.message).toContain("token expired")
  })

  it("stops the process of a server that timed out", async () => {
    const hang = silent("hang")
    await snapshotServers([hang.config], { cwd: dir, timeoutMs: 800 })
    const pid = Number(await readFile(hang.pidFile, "utf8"))
    expect(pid).toBeGreaterThan(0)
    expect(await eventually(() => !alive(pid))).toBe(true)
  })

  it("honours a per-server timeout from promptline's own config, and says where it is set", async () => {
    const hang = silent("hang")
    const own = { ...hang.config, timeoutMs: 300, timeoutSource: ".promptline/mcp.json" }
    const result = await snapshotServers([own], { cwd: dir, timeoutMs: 60_000 })
    expect(result.diagnostics[0]?.message).toBe(
      "MCP server `hang`: no answer within 0.3 s. Raise its `timeout` setting (seconds) in .promptline/mcp.json.",
    )
  })

  it("at the default time, names the per-server timeout setting, its file, and a package runner's first download", async () => {
    // A package runner that never answers: `npx` here is a script on PATH-less absolute path.
    const npx = join(dir, "npx")
    await writeFile(npx, "#!/bin/sh\nexec sleep 30\n", { mode: 0o755 })
    const config = stdioConfig("docs", npx, ["-y", "some-mcp-server"])
    const result = await snapshotServers([config], { cwd: dir, timeoutMs: 400 })
    const message = result.diagnostics[0]?.message ?? ""
    expect(result.diagnostics[0]?.code).toBe("mcp-server-timeout")
    expect(message).toMatch(/^MCP server `docs`: no answer within 0\.4 s\. /)
    expect(message).toContain("The first start through `npx -y` downloads the package")
    expect(message).toContain(
      'per-server `timeout` setting (seconds), read from promptline\'s own file: add { "mcpServers": { "docs": { "timeout": 60 } } } to .promptline/mcp.json; the server stays as .mcp.json declares it.',
    )
  })

  it("leaves out a tool the context would reject, with a warning, and keeps the server's other tools", async () => {
    const schema = { type: "object", properties: {} }
    const server = toolsServer([
      { name: "", description: "no name", inputSchema: schema },
      { name: "ok", description: "fine", inputSchema: schema },
    ])
    const result = await snapshotServers([stdioConfig("odd", server.command, server.args)], {
      cwd: dir,
      timeoutMs: 30_000,
    })
    expect(result.servers).toEqual([
      {
        name: "odd",
        tools: [{ name: "ok", description: "fine", inputSchema: schema }],
        resources: [],
        resourceTemplates: [],
      },
    ])
    expect(result.configs.map((c) => c.name)).toEqual(["odd"])
    expect(result.entries).toEqual([
      expect.objectContaining({
        path: "odd",
        status: "loaded",
        reason: "1 invalid tool left out",
        detail: "1 tool, 0 resources, 0 resource templates; from .mcp.json",
      }),
    ])
    expect(result.diagnostics).toEqual([
      expect.objectContaining({ level: "warning", code: "mcp-tool-invalid", path: ".mcp.json" }),
    ])
    expect(result.diagnostics[0]?.message).toMatch(/^MCP server `odd`: tool "" left out \(name: .+\)$/)
  })
})
