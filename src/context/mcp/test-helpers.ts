// Helpers for MCP tests: real server processes. Not part of the public API.
import { type ChildProcess, spawn } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import { writeFile } from "node:fs/promises"
import { createServer } from "node:net"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { EVERYTHING_SERVER } from "../test-helpers/workspace.js"
import type { McpServerConfig } from "./config.js"

/** A stdio server config for tests. */
export function stdioConfig(name: string, command: string, args: string[], extra: Partial<McpServerConfig> = {}) {
  const config: McpServerConfig = {
    name,
    source: ".mcp.json",
    format: "claude",
    scope: "project",
    transport: "stdio",
    command,
    args,
    env: {},
    headers: {},
    disabled: false,
    ...extra,
  }
  return config
}

const SDK = new URL("../../../node_modules/@modelcontextprotocol/sdk/dist/esm/server/", import.meta.url)

/**
 * The command and arguments of a real stdio MCP server (the SDK's own server class) that lists exactly
 * `tools`, as given: a test can serve tools the SDK lets through but promptline must not trust.
 */
export function toolsServer(tools: readonly Record<string, unknown>[]): { command: string; args: string[] } {
  const url = (file: string) => JSON.stringify(pathToFileURL(new URL(file, SDK).pathname).href)
  const script = `
    import { Server } from ${url("index.js")}
    import { StdioServerTransport } from ${url("stdio.js")}
    import { ListToolsRequestSchema } from ${url("../types.js")}
    const tools = ${JSON.stringify(tools)}
    const server = new Server({ name: "tools", version: "1.0.0" }, { capabilities: { tools: {} } })
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }))
    await server.connect(new StdioServerTransport())
  `
  return { command: process.execPath, args: ["--input-type=module", "-e", script] }
}

/** A port nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer()
    server.once("error", fail)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => done(typeof address === "object" && address ? address.port : 0))
    })
  })
}

/** Starts server-everything in streamable HTTP (or the older SSE) mode; resolves once it listens. */
export async function startHttpEverything(mode: "streamableHttp" | "sse" = "streamableHttp"): Promise<{
  url: string
  child: ChildProcess
  /** What the server printed on stdout so far. */
  log: () => string
  stop: () => Promise<void>
}> {
  const port = await freePort()
  const child = spawn(process.execPath, [EVERYTHING_SERVER, mode], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  })
  let stdout = ""
  child.stdout!.on("data", (chunk: Buffer) => {
    stdout += chunk.toString()
  })
  await new Promise<void>((done, fail) => {
    let seen = ""
    const timer = setTimeout(() => fail(new Error(`server did not start: ${seen}`)), 15_000)
    child.stderr!.on("data", (chunk: Buffer) => {
      seen += chunk.toString()
      if (seen.includes("listening on port") || seen.includes("running on port")) {
        clearTimeout(timer)
        done()
      }
    })
    child.once("exit", (code) => fail(new Error(`server exited with ${code}: ${seen}`)))
  })
  const stop = () =>
    new Promise<void>((done) => {
      if (child.exitCode !== null) return done()
      child.once("exit", () => done())
      child.kill()
    })
  const path = mode === "sse" ? "sse" : "mcp"
  return { url: `http://127.0.0.1:${port}/${path}`, child, log: () => stdout, stop }
}

/** True while a process with this id exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** Waits until `check` holds or `ms` pass; returns its last value. */
export async function eventually(check: () => boolean, ms = 3000): Promise<boolean> {
  const end = Date.now() + ms
  while (!check() && Date.now() < end) await new Promise((r) => setTimeout(r, 50))
  return check()
}

/** The live (not zombie) processes whose command line contains `text` (Linux; empty elsewhere). */
export function processesRunning(text: string): number[] {
  if (process.platform !== "linux") return []
  const out: number[] = []
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8")
      if (stat.slice(stat.lastIndexOf(")") + 2)[0] === "Z") continue
      const args = readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0").join(" ")
      if (args.includes(text)) out.push(Number(name))
    } catch {
      // ended while we looked
    }
  }
  return out
}

/** Writes an executable shell script (a stand-in for an MCP server's wrapper script) and returns its path. */
export async function shellScript(dir: string, name: string, body: string): Promise<string> {
  const file = join(dir, name)
  await writeFile(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 })
  return file
}
