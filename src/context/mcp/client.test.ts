import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { EVERYTHING_SERVER } from "../test-helpers/workspace.js"
import { McpConnectError, McpConnection } from "./client.js"
import type { McpServerConfig } from "./config.js"
import { eventually, startHttpEverything, stdioConfig } from "./test-helpers.js"

const everything = stdioConfig("everything", process.execPath, [EVERYTHING_SERVER, "stdio"])

function expectSortedSnapshot(snapshot: Awaited<ReturnType<McpConnection["snapshot"]>>) {
  const names = snapshot.tools.map((t) => t.name)
  expect(names).toEqual([...names].sort())
  expect(names).toContain("echo")
  expect(names).toContain("get-sum")
  expect(snapshot.tools.find((t) => t.name === "echo")?.inputSchema).toMatchObject({ type: "object" })
  const uris = snapshot.resources.map((r) => r.uri)
  expect(uris.length).toBeGreaterThan(0)
  expect(uris).toEqual([...uris].sort())
  expect(snapshot.resourceTemplates.map((t) => t.uriTemplate)).toContain("demo://resource/dynamic/text/{resourceId}")
  expect(snapshot.instructions).toMatch(/Everything Server/)
  for (const r of snapshot.resources) expect(Object.keys(r).sort()).toEqual(expect.arrayContaining(["name", "uri"]))
}

describe("McpConnection over stdio", () => {
  it("lists tools, resources, templates and instructions from a real server, sorted", async () => {
    const connection = await McpConnection.open(everything, { timeout: 20_000 })
    try {
      const snapshot = await connection.snapshot()
      expect(snapshot.name).toBe("everything")
      expectSortedSnapshot(snapshot)
      const echoed = await connection.callTool("echo", { message: "hi" })
      expect(JSON.stringify(echoed)).toContain("hi")
    } finally {
      await connection.close()
      await connection.close()
    }
  })

  it("throws McpConnectError with the server's stderr when it dies during the handshake", async () => {
    const crash = stdioConfig("crash", process.execPath, ["-e", "console.error('bad config'); process.exit(2)"])
    const error = await McpConnection.open(crash, { timeout: 10_000 }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(McpConnectError)
    expect(error).toMatchObject({ code: "mcp-connect", server: "crash", stderr: "bad config" })
  })
})

describe("McpConnection over streamable HTTP", () => {
  let server: Awaited<ReturnType<typeof startHttpEverything>>
  beforeAll(async () => {
    server = await startHttpEverything()
  })
  afterAll(async () => {
    await server?.stop()
  })

  for (const transport of ["http", "url"] as const) {
    it(`snapshots the same server over HTTP (transport: ${transport})`, async () => {
      const config: McpServerConfig = { ...everything, transport, url: server.url }
      const connection = await McpConnection.open(config, { timeout: 20_000 })
      const sessions = () => server.log().split("Received session termination request").length - 1
      const before = sessions()
      try {
        expectSortedSnapshot(await connection.snapshot())
      } finally {
        await connection.close()
      }
      expect(await eventually(() => sessions() === before + 1)).toBe(true)
    })
  }
})

describe("McpConnection to a server that only speaks SSE", () => {
  let server: Awaited<ReturnType<typeof startHttpEverything>>
  beforeAll(async () => {
    server = await startHttpEverything("sse")
  })
  afterAll(async () => {
    await server?.stop()
  })

  it("falls back from streamable HTTP to SSE when the config names only a url", async () => {
    const connection = await McpConnection.open(
      { ...everything, transport: "url", url: server.url },
      { timeout: 20_000 },
    )
    try {
      expectSortedSnapshot(await connection.snapshot())
    } finally {
      await connection.close()
    }
  })
})
