import { fileURLToPath } from "node:url"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { type McpServerInfo, mcpServerSchema } from "../context/prompt-context.js"
import { BUILTIN_TOOL_IDS } from "./catalog/index.js"
import { enableTools, richContext } from "./catalog/test-helpers/enable.js"
import { MAX_TOOL_NAME_LENGTH, mcpToolName, mcpToolSpecs, TOOL_NAME_PATTERN } from "./mcp.js"
import { toNativeTools } from "./native.js"
import { renderXmlToolDocs } from "./xml.js"

/** A server snapshot from plain names and optional tool details, with the schema's defaults filled. */
type ToolInput = { name: string; description?: string; inputSchema?: Record<string, unknown> }

function server(name: string, tools: (string | ToolInput)[]): McpServerInfo {
  return mcpServerSchema.parse({ name, tools: tools.map((t) => (typeof t === "string" ? { name: t } : t)) })
}

const ids = (servers: McpServerInfo[], reserved?: string[]) =>
  mcpToolSpecs(servers, reserved ? { reserved } : {}).specs.map((s) => s.id)

describe("mcpToolSpecs", () => {
  it("names tools mcp__<server>__<tool>, kind mcp, external, sorted by name", () => {
    const { specs, diagnostics } = mcpToolSpecs([server("zeta", ["b", "a"]), server("alpha", ["run"])])
    expect(specs.map((s) => s.id)).toEqual(["mcp__alpha__run", "mcp__zeta__a", "mcp__zeta__b"])
    expect(specs[0]).toMatchObject({ kind: "mcp", external: true, mcp: { server: "alpha", tool: "run" } })
    expect(diagnostics).toEqual([])
  })

  it("replaces characters providers reject and reports nothing when the result is unique", () => {
    expect(mcpToolName("my.server", "get file")).toBe("mcp__my_server__get_file")
    expect(ids([server("my.server", ["get file", "日本"])])).toEqual(["mcp__my_server____", "mcp__my_server__get_file"])
  })

  it("keeps the untouched name and hashes the sanitized ones that collide with it", () => {
    const { specs, diagnostics } = mcpToolSpecs([server("s", ["a_b", "a.b", "a b"])])
    const byTool = Object.fromEntries(specs.map((s) => [s.mcp?.tool, s.id]))
    expect(byTool.a_b).toBe("mcp__s__a_b")
    expect(byTool["a.b"]).toMatch(/^mcp__s__a_b_[0-9a-f]{8}$/)
    expect(byTool["a b"]).toMatch(/^mcp__s__a_b_[0-9a-f]{8}$/)
    expect(byTool["a.b"]).not.toBe(byTool["a b"])
    expect(diagnostics.map((d) => d.code)).toEqual(["mcp-tool-renamed", "mcp-tool-renamed"])
    expect(diagnostics.every((d) => d.level === "info")).toBe(true)
  })

  it("shortens long names to 64 characters with a stable hash", () => {
    const long = "x".repeat(80)
    const first = ids([server("server", [long, `${long}y`])])
    expect(first).toHaveLength(2)
    for (const id of first) expect(id.length).toBe(MAX_TOOL_NAME_LENGTH)
    expect(new Set(first).size).toBe(2)
    expect(ids([server("server", [`${long}y`, long, "other"])]).filter((id) => id.length === 64)).toEqual(first)
  })

  it("never takes a reserved name", () => {
    const [id] = ids([server("a", ["b"])], ["mcp__a__b"])
    expect(id).toMatch(/^mcp__a__b_[0-9a-f]{8}$/)
  })

  it("reports duplicates and tools that cannot be offered instead of dropping them silently", () => {
    const { specs, diagnostics } = mcpToolSpecs([
      server("s", ["t"]),
      server("s", ["t"]),
      server("s", [{ name: "scalar", inputSchema: { type: "string" } }]),
      { name: "s", tools: [{ name: "", inputSchema: {} }], resources: [], resourceTemplates: [] },
    ])
    expect(specs.map((s) => s.id)).toEqual(["mcp__s__t"])
    expect(diagnostics.map((d) => [d.level, d.code])).toEqual([
      ["warning", "mcp-tool-duplicate"],
      ["error", "mcp-tool-unnamed"],
      ["error", "mcp-tool-bad-schema"],
    ])
  })

  it("takes parameters from the input schema, nested schemas whole and local references inlined", () => {
    const inputSchema = {
      type: "object",
      $defs: {
        Point: { type: "object", properties: { x: { type: "number" }, y: { type: "number" } }, required: ["x", "y"] },
        Node: { type: "object", properties: { children: { type: "array", items: { $ref: "#/$defs/Node" } } } },
      },
      properties: {
        at: { $ref: "#/$defs/Point", description: "Where." },
        path: { type: "array", items: { $ref: "#/$defs/Point" }, examples: [[{ x: 1, y: 2 }]] },
        tree: { $ref: "#/$defs/Node" },
        mode: { type: "string", enum: ["a", "b"], default: "a" },
      },
      required: ["at"],
    }
    const { specs, diagnostics } = mcpToolSpecs([
      server("geo", [{ name: "route", description: "Routes.", inputSchema }]),
    ])
    const spec = specs[0]!
    expect(Object.keys(spec.parameters)).toEqual(["at", "path", "tree", "mode"])
    expect(spec.parameters.at).toEqual({
      schema: {
        type: "object",
        properties: { x: { type: "number" }, y: { type: "number" } },
        required: ["x", "y"],
        description: "Where.",
      },
      required: true,
    })
    expect(spec.parameters.path?.schema.items).toEqual(inputSchema.$defs.Point)
    expect(spec.parameters.path?.example).toBe('[{"x":1,"y":2}]')
    expect(spec.parameters.mode?.example).toBe("a")
    // A recursive reference stops at the first repeat, as any value.
    expect(spec.parameters.tree?.schema).toEqual({
      type: "object",
      properties: { children: { type: "array", items: {} } },
    })
    expect(JSON.stringify(specs)).not.toContain("$ref")
    expect(diagnostics.map((d) => d.code)).toEqual(["mcp-schema-ref"])
  })

  it("keeps the server's description as data and derives a one-line snippet", () => {
    const description = "Finds ${{ 7*7 }} things. Then more.\nSecond line."
    const [spec] = mcpToolSpecs([server("s", [{ name: "f", description }, "g"])]).specs
    expect(spec?.description).toBe(description)
    expect(spec?.snippet).toBe("Finds ${{ 7*7 }} things.")
    const [, bare] = mcpToolSpecs([server("s", [{ name: "f", description }, "g"])]).specs
    expect(bare?.description).toBe('The tool "g" of the MCP server "s".')
  })

  it("gives every tool a valid, unique, reserved-free name whatever the server and tool names", () => {
    const name = fc.oneof(
      fc.string({ minLength: 1, maxLength: 80 }),
      fc.string({ unit: "grapheme", minLength: 1, maxLength: 40 }),
      fc.constantFrom("a", "a.b", "a_b", "a b", "mcp", "x".repeat(70), "read_file", "__", "-"),
    )
    const servers = fc.array(fc.record({ name, tools: fc.uniqueArray(name, { maxLength: 6 }) }), { maxLength: 6 })
    fc.assert(
      fc.property(servers, (raw) => {
        const snapshots = raw.map((s) => server(s.name, s.tools))
        const { specs, diagnostics } = mcpToolSpecs(snapshots)
        const names = specs.map((s) => s.id)
        for (const n of names) expect(n).toMatch(TOOL_NAME_PATTERN)
        expect(new Set(names).size).toBe(names.length)
        for (const id of BUILTIN_TOOL_IDS) expect(names).not.toContain(id)
        expect([...names].sort()).toEqual(names)
        // Every distinct (server, tool) is offered; each repeat is a diagnostic.
        const distinct = new Set(raw.flatMap((s) => s.tools.map((t) => `${s.name}\u0000${t}`)))
        expect(specs.length).toBe(distinct.size)
        const total = raw.reduce((sum, s) => sum + s.tools.length, 0)
        expect(diagnostics.filter((d) => d.code === "mcp-tool-duplicate").length).toBe(total - distinct.size)
      }),
      { numRuns: 300 },
    )
  })

  it("names a tool the same whatever the order of servers and tools", () => {
    const names = fc.uniqueArray(fc.constantFrom("a", "a.b", "a_b", "a b", "b", "x".repeat(70), "x".repeat(71)), {
      minLength: 1,
    })
    fc.assert(
      fc.property(fc.uniqueArray(fc.constantFrom("s", "s.t", "s_t"), { minLength: 1 }), names, (servers, tools) => {
        const forward = mcpToolSpecs(servers.map((s) => server(s, tools)))
        const backward = mcpToolSpecs([...servers].reverse().map((s) => server(s, [...tools].reverse())))
        expect(backward.specs).toEqual(forward.specs)
      }),
    )
  })
})

describe("mcpToolSpecs with a real MCP server", () => {
  it("turns the tools of @modelcontextprotocol/server-everything into specs every dialect renders", async () => {
    const entry = fileURLToPath(
      new URL("../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url),
    )
    const transport = new StdioClientTransport({ command: process.execPath, args: [entry, "stdio"], stderr: "ignore" })
    const client = new Client({ name: "promptline-test", version: "0.0.0" })
    await client.connect(transport)
    let listed: Awaited<ReturnType<Client["listTools"]>>
    try {
      listed = await client.listTools()
    } finally {
      await client.close()
    }
    const snapshot = mcpServerSchema.parse({
      name: "everything",
      tools: listed.tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema })),
    })
    const { specs, diagnostics } = mcpToolSpecs([snapshot])
    expect(diagnostics).toEqual([])
    expect(specs.length).toBe(listed.tools.length)
    expect(specs.map((s) => s.id)).toContain("mcp__everything__get-sum")
    const sum = specs.find((s) => s.mcp?.tool === "get-sum")!
    expect(Object.keys(sum.parameters)).toEqual(["a", "b"])
    expect(sum.parameters.a).toMatchObject({ required: true, schema: { type: "number" } })

    const tools = enableTools(richContext({ mcpServers: [snapshot] }), "gpt", [], undefined, specs)
    expect(tools.map((t) => t.name)).toEqual(specs.map((s) => s.id))
    const docs = renderXmlToolDocs(tools)
    expect(docs).toContain("### mcp__everything__get-sum")
    expect(docs).toContain("- a (required, JSON number): First number")
    for (const format of ["anthropic", "openai-chat", "openai-responses"] as const) {
      expect(toNativeTools(tools, format)).toHaveLength(tools.length)
    }
    const [gemini] = toNativeTools(tools, "gemini") as { functionDeclarations: unknown[] }[]
    expect(gemini?.functionDeclarations).toHaveLength(tools.length)
  })
})
