/**
 * `promptline run` and a provider that quotes the key it was sent: in its 401 before the answer (the error the
 * user is told) and in an error event inside a streamed answer (the trace). Neither the output nor the trace
 * files hold the key.
 */

import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { runCli } from "./test-helpers/run.js"

const KEY = "sk-ant-run-key-0123456789abcdef"

let server: Server | undefined
let cwd: string | undefined
afterEach(async () => {
  server?.closeAllConnections()
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))
  if (cwd) await rm(cwd, { recursive: true, force: true })
  server = cwd = undefined
})

/** A local Anthropic stand-in: `refuse` answers 401 quoting the key, else a stream whose error event quotes it. */
async function quotingProvider(refuse: boolean): Promise<string> {
  server = createServer((req, res) => {
    const key = String(req.headers["x-api-key"] ?? "")
    req.resume()
    req.on("end", () => {
      if (refuse) {
        res.writeHead(401, { "content-type": "application/json" })
        const error = { type: "authentication_error", message: `invalid x-api-key: ${key}` }
        return void res.end(JSON.stringify({ type: "error", error }))
      }
      res.writeHead(200, { "content-type": "text/event-stream" })
      const error = { type: "invalid_request_error", message: `the key ${key} may not use this model` }
      res.end(`event: error\ndata: ${JSON.stringify({ type: "error", error })}\n\n`)
    })
  })
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", () => resolve()))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

/** Runs one task against `base` with traces; returns what was printed and every trace file's text. */
async function run(base: string): Promise<{ code: number; printed: string; traces: string }> {
  cwd = await mkdtemp(join(tmpdir(), "pl-run-redaction-"))
  await writeFile(join(cwd, "README.md"), "a sample\n")
  const env = { PATH: process.env.PATH, SHELL: "/bin/sh", HOME: cwd, ANTHROPIC_API_KEY: KEY }
  const args = ["run", "--no-mcp", "--cwd", cwd, "--base-url", base, "--model", "claude-sonnet-4-5"]
  const r = await runCli([...args, "--trace", "traces", "--approve", "reads", "say hi"], { cwd, env })
  const texts: string[] = []
  const folder = join(cwd, "traces")
  for (const entry of await readdir(folder, { recursive: true, withFileTypes: true }).catch(() => []))
    if (entry.isFile()) texts.push(await readFile(join(entry.parentPath, entry.name), "utf8"))
  return { code: r.code, printed: r.stdout + r.stderr, traces: texts.join("\n") }
}

describe("promptline run and a provider that quotes the key", () => {
  it("tells the refusal without the key", async () => {
    const out = await run(await quotingProvider(true))
    expect(out.code).toBe(1)
    expect(out.printed).toContain("invalid x-api-key: [redacted]")
    expect(out.printed).not.toContain(KEY)
  })

  it("keeps an error event that quotes the key out of the trace files", async () => {
    const out = await run(await quotingProvider(false))
    expect(out.traces).toContain("may not use this model")
    expect(out.traces).toContain("[redacted]")
    expect(out.traces).not.toContain(KEY)
  })
})
