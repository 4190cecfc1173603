import path from "node:path"
import { fileURLToPath } from "node:url"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type TempWorkspace, tempWorkspace, textOf } from "./test-helpers/workspace.js"
import type { McpCaller } from "./types.js"

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..")
const serverEntry = path.join(repo, "node_modules/@modelcontextprotocol/server-everything/dist/index.js")

let ws: TempWorkspace
let client: Client
let caller: McpCaller

beforeAll(async () => {
  ws = await tempWorkspace()
  client = new Client({ name: "promptline-test", version: "0.0.0" })
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [serverEntry, "stdio"], stderr: "ignore" }),
  )
  // The small adapter a host writes over its live MCP connections.
  const only = (server: string) => {
    if (server !== "everything") throw new Error(`no MCP server named "${server}"`)
  }
  caller = {
    async callTool(server, tool, args, { signal }) {
      only(server)
      return (await client.callTool({ name: tool, arguments: args }, undefined, { signal })) as Awaited<
        ReturnType<McpCaller["callTool"]>
      >
    },
    async readResource(server, uri, { signal }) {
      only(server)
      return client.readResource({ uri }, { signal })
    },
  }
})

afterAll(async () => {
  await client?.close()
  await ws?.dispose()
})

describe("use_mcp_tool against @modelcontextprotocol/server-everything", () => {
  it("calls a tool and returns its text", async () => {
    const out = await ws.run(
      "use_mcp_tool",
      { server_name: "everything", tool_name: "echo", arguments: { message: "hello" } },
      { mcp: caller },
    )
    expect(out).toMatchObject({ isError: false, content: "Echo: hello", summary: "called everything/echo" })
  })

  it("accepts arguments given as JSON text (the XML dialect)", async () => {
    const out = await ws.run(
      "use_mcp_tool",
      { server_name: "everything", tool_name: "echo", arguments: '{"message":"from xml"}' },
      { mcp: caller },
    )
    expect(out.content).toBe("Echo: from xml")
  })

  it("keeps images as image blocks", async () => {
    const out = await ws.run(
      "use_mcp_tool",
      { server_name: "everything", tool_name: "get-tiny-image" },
      { mcp: caller },
    )
    expect(Array.isArray(out.content)).toBe(true)
    const blocks = out.content as { type: string; mediaType?: string }[]
    expect(blocks.some((b) => b.type === "image" && b.mediaType === "image/png")).toBe(true)
  })

  it("reports a tool error and an unknown server as error results", async () => {
    const bad = await ws.run(
      "use_mcp_tool",
      { server_name: "everything", tool_name: "echo", arguments: { wrong: 1 } },
      { mcp: caller },
    )
    expect(bad.isError).toBe(true)
    const unknown = await ws.run("use_mcp_tool", { server_name: "nope", tool_name: "echo" }, { mcp: caller })
    expect(unknown.isError).toBe(true)
    expect(textOf(unknown)).toContain('no MCP server named "nope"')
  })

  it("caps long text", async () => {
    const out = await ws.run(
      "use_mcp_tool",
      { server_name: "everything", tool_name: "echo", arguments: { message: "x".repeat(500) } },
      { mcp: caller, limits: { mcpMaxChars: 100 } },
    )
    expect(textOf(out)).toContain("more characters not shown (limit 100)")
  })

  it("is an error result when no MCP caller is configured", async () => {
    const out = await ws.run("use_mcp_tool", { server_name: "everything", tool_name: "echo" })
    expect(out).toMatchObject({ isError: true, content: "No MCP servers are connected in this session." })
  })
})

describe("access_mcp_resource against @modelcontextprotocol/server-everything", () => {
  it("reads a text resource", async () => {
    const out = await ws.run(
      "access_mcp_resource",
      { server_name: "everything", uri: "demo://resource/dynamic/text/1" },
      { mcp: caller },
    )
    expect(out.isError).toBe(false)
    expect(textOf(out)).toContain("Resource 1: This is a plaintext resource")
  })

  it("describes a binary resource instead of dumping it", async () => {
    const out = await ws.run(
      "access_mcp_resource",
      { server_name: "everything", uri: "demo://resource/dynamic/blob/1" },
      { mcp: caller },
    )
    expect(textOf(out)).toMatch(/\[binary resource demo:\/\/resource\/dynamic\/blob\/1: text\/plain, \d+ bytes\]/)
  })

  it("reports a missing resource and a missing caller", async () => {
    const missing = await ws.run(
      "access_mcp_resource",
      { server_name: "everything", uri: "demo://nothing" },
      { mcp: caller },
    )
    expect(missing.isError).toBe(true)
    expect((await ws.run("access_mcp_resource", { server_name: "x", uri: "y" })).isError).toBe(true)
  })
})
