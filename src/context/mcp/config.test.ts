import { describe, expect, it } from "vitest"
import { mcpConfigSources, parseMcpConfig } from "./config.js"
import { expandVars } from "./expand.js"

const vars = { env: { TOKEN: "secret", HOME_DIR: "/h" }, home: "/home/u", workspace: "/srv/app" }
const source = (format: "claude" | "cursor" | "cline" | "promptline") => ({
  abs: "/srv/app/.mcp.json",
  path: ".mcp.json",
  format,
  scope: "project" as const,
})

describe("expandVars", () => {
  it("expands Claude Code and Cursor variable forms", () => {
    expect(expandVars("${TOKEN}|${env:TOKEN}|${NOPE:-fallback}|${userHome}|${workspaceFolderBasename}", vars)).toEqual({
      value: "secret|secret|fallback|/home/u|app",
      missing: [],
    })
  })

  it("reports unset variables and leaves unknown forms alone", () => {
    expect(expandVars("a${MISSING}b ${not valid}", vars)).toEqual({ value: "ab ${not valid}", missing: ["MISSING"] })
  })
})

describe("parseMcpConfig", () => {
  it("normalizes stdio and HTTP servers from a Claude Code .mcp.json", () => {
    const raw = JSON.stringify({
      mcpServers: {
        fs: { command: "npx", args: ["-y", "server-fs", "${workspaceFolder}"], env: { KEY: "${TOKEN}" } },
        remote: { type: "http", url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer ${TOKEN}" } },
        legacy: { type: "sse", url: "https://old.example.com/sse" },
      },
    })
    const { servers, diagnostics } = parseMcpConfig(raw, source("claude"), vars)
    expect(diagnostics).toEqual([])
    expect(servers).toEqual([
      {
        name: "fs",
        source: ".mcp.json",
        format: "claude",
        scope: "project",
        transport: "stdio",
        command: "npx",
        args: ["-y", "server-fs", "/srv/app"],
        env: { KEY: "secret" },
        headers: {},
        disabled: false,
      },
      expect.objectContaining({
        name: "remote",
        transport: "http",
        url: "https://mcp.example.com/mcp",
        headers: { Authorization: "Bearer secret" },
      }),
      expect.objectContaining({ name: "legacy", transport: "sse" }),
    ])
  })

  it("reads Cline's settings: transport names, disabled servers, extra keys", () => {
    const raw = `{
      "mcpServers": {
        "a": { "type": "streamableHttp", "url": "http://localhost:1/mcp", "autoApprove": [], "timeout": 60 },
        "b": { "command": "node", "args": ["s.js"], "disabled": true },
        "c": { "url": "http://localhost:2/sse" }
      }
    }`
    const { servers } = parseMcpConfig(raw, source("cline"), vars)
    expect(servers.map((s) => [s.name, s.transport, s.disabled, s.timeoutMs])).toEqual([
      ["a", "http", false, undefined],
      ["b", "stdio", true, undefined],
      ["c", "url", false, undefined],
    ])
  })

  it("takes `timeout` (seconds) and `cwd` from promptline's own config, and allows comments", () => {
    const raw = `{
      // promptline's own file
      "mcpServers": { "x": { "command": "x", "timeout": 2.5, "cwd": "tools" } },
    }`
    const [server] = parseMcpConfig(raw, source("promptline"), vars).servers
    expect(server).toMatchObject({ timeoutMs: 2500, cwd: "/srv/app/tools" })
  })

  it("takes a `timeout`-only entry of promptline's own file as the time for a server declared elsewhere", () => {
    const raw = `{ "mcpServers": { "docs": { "timeout": 90 }, "odd": { "timeout": 5, "args": [] } } }`
    const own = parseMcpConfig(raw, source("promptline"), vars)
    expect(own.servers).toEqual([])
    expect(own.timeouts).toEqual(new Map([["docs", 90_000]]))
    // Anything beside `timeout` without a command or url is still a server missing both.
    expect(own.diagnostics.map((d) => d.message)).toEqual([expect.stringMatching(/^server `odd`: needs a `command`/)])
    // Other tools' files keep their meaning: an entry there needs a command or url.
    const other = parseMcpConfig(raw, source("claude"), vars)
    expect(other.timeouts).toBeUndefined()
    expect(other.diagnostics).toHaveLength(2)
  })

  it("reports each bad server with its line and keeps the good ones", () => {
    const raw = [
      "{",
      '  "mcpServers": {',
      '    "good": { "command": "ok" },',
      '    "nothing": {},',
      '    "odd": { "type": "carrier-pigeon", "url": "x" },',
      '    "typed": { "command": 42 },',
      '    "env": { "command": "run", "env": { "K": "${UNSET_VAR}" } }',
      "  }",
      "}",
    ].join("\n")
    const { servers, diagnostics } = parseMcpConfig(raw, source("claude"), vars)
    expect(servers.map((s) => s.name)).toEqual(["good", "env"])
    expect(diagnostics.map((d) => [d.code, d.line])).toEqual([
      ["mcp-config-invalid", 4],
      ["mcp-config-invalid", 5],
      ["mcp-config-invalid", 6],
      ["mcp-env-missing", 7],
    ])
    expect(diagnostics[1]?.message).toContain("unknown transport type `carrier-pigeon`")
  })

  it("reports invalid JSON with its line and column, in plain words", () => {
    const { servers, diagnostics } = parseMcpConfig('{\n  "mcpServers": {\n    "a": \n}', source("claude"), vars)
    expect(servers).toEqual([])
    expect(diagnostics).toEqual([expect.objectContaining({ code: "mcp-config-invalid", path: ".mcp.json", line: 4 })])
    expect(diagnostics[0]?.message).toBe('not valid JSON (expected a value, found "}", column 1); no servers read')
  })
})

describe("mcpConfigSources", () => {
  it("lists project files (cwd, then the git root) before the user roots that are on", () => {
    const sources = mcpConfigSources({
      cwd: "/r/pkg",
      root: "/r",
      home: "/h",
      env: {},
      userRoots: new Set(["promptline", "cline"]),
    })
    expect(sources.map((s) => `${s.scope} ${s.format} ${s.abs}`)).toEqual([
      "project promptline /r/pkg/.promptline/mcp.json",
      "project claude /r/pkg/.mcp.json",
      "project cursor /r/pkg/.cursor/mcp.json",
      "project promptline /r/.promptline/mcp.json",
      "project claude /r/.mcp.json",
      "project cursor /r/.cursor/mcp.json",
      "user promptline /h/.config/promptline/mcp.json",
      "user cline /h/.cline/data/settings/cline_mcp_settings.json",
      "user cline /h/.config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
      "user cline /h/Library/Application Support/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
    ])
  })
})
