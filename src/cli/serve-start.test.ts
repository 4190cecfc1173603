/**
 * `promptline serve` when it cannot start: each operator error is one line on stderr naming what stands in the
 * way and what to do, exit status 1, and never a stack trace. The listen failures Node reports are mapped one by
 * one (listen.ts); the ones a test can cause on this machine without privileges are caused for real.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { listenError } from "../gateway/listen.js"
import { main } from "./main.js"

let dir: string | undefined
let busy: Server | undefined
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true })
  await new Promise<void>((resolve) => (busy ? busy.close(() => resolve()) : resolve()))
  dir = busy = undefined
})

/** Runs `promptline serve` expecting it not to start; what it printed and its exit status. */
async function failedServe(argv: string[], env: Record<string, string> = {}) {
  dir ??= await mkdtemp(join(tmpdir(), "pl-serve-start-"))
  let stdout = ""
  let stderr = ""
  const io = {
    stdout: (t: string) => {
      stdout += t
    },
    stderr: (t: string) => {
      stderr += t
    },
    cwd: dir,
    env: { HOME: dir, ...env },
    today: () => "2026-11-29",
  }
  const code = await main(["serve", ...argv], io)
  return { code, stdout, stderr }
}

/** One line, no stack trace. */
/** Routes to an upstream with a key of its own, so a token-guarded config draws no keyless-upstream warning. */
const KEYED = {
  upstreams: { up: { provider: "anthropic", keyEnv: "UP_KEY" } },
  routes: [{ match: "*", upstream: "up" }],
}

function oneLine(stderr: string): string {
  expect(stderr.endsWith("\n")).toBe(true)
  expect(stderr.trimEnd().split("\n")).toHaveLength(1)
  expect(stderr).not.toMatch(/\n\s+at |Error:/)
  return stderr.trimEnd()
}

describe("promptline serve that cannot start", () => {
  it("names a port another program holds, and what to do", async () => {
    busy = createServer()
    await new Promise<void>((resolve) => busy!.listen(0, "127.0.0.1", () => resolve()))
    const { port } = busy.address() as AddressInfo
    const run = await failedServe(["--port", String(port)])
    expect(run.code).toBe(1)
    expect(oneLine(run.stderr)).toBe(
      `promptline: cannot listen on 127.0.0.1:${port}: another program (perhaps another promptline serve) already listens on port ${port}; stop it, or choose another port with --port or gateway.port (0 picks a free one)`,
    )
    expect(run.stdout).not.toContain("gateway on")
  })

  it("names an address that is not this machine's", async () => {
    dir = await mkdtemp(join(tmpdir(), "pl-serve-start-"))
    const config = join(dir, "gw.json")
    await writeFile(config, JSON.stringify({ gateway: { tokenEnv: "GW_TOKEN", ...KEYED } }))
    // TEST-NET-1 (RFC 5737): never a local address; binding to it fails at once and sends nothing.
    const run = await failedServe(["--host", "192.0.2.1", "--port", "0", "--config", config], {
      GW_TOKEN: "t",
      UP_KEY: "k",
    })
    expect(run.code).toBe(1)
    expect(oneLine(run.stderr)).toMatch(
      /^promptline: cannot listen on 192\.0\.2\.1:0: 192\.0\.2\.1 is not an address of this machine; give one of its own with --host or gateway\.host/,
    )
  })

  it("gives the other start-up failures one line too: config errors and a token that is not set", async () => {
    dir = await mkdtemp(join(tmpdir(), "pl-serve-start-"))
    const broken = join(dir, "broken.json")
    await writeFile(broken, '{ "gateway": { "port": "x" } }')
    const unknown = join(dir, "unknown.json")
    await writeFile(unknown, JSON.stringify({ gateway: { headersTimeoutMs: 0 } }))
    const token = join(dir, "token.json")
    await writeFile(token, JSON.stringify({ gateway: { tokenEnv: "NOT_SET_ANYWHERE", ...KEYED } }))
    for (const argv of [
      ["--config", broken],
      ["--config", unknown],
      ["--config", token],
      ["--config", join(dir, "missing.json")],
      ["--port", "70000"],
    ]) {
      const run = await failedServe(argv)
      expect([argv, run.code]).toEqual([argv, 1])
      expect(oneLine(run.stderr)).toMatch(/^promptline: /)
    }
  })
})

describe("listenError", () => {
  it("maps each way listening fails to a line naming the fix, with a stable code", () => {
    const error = (code: string) => Object.assign(new Error(`listen ${code}`), { code })
    expect(listenError(error("EADDRINUSE"), "::1", 8788)).toMatchObject({
      code: "gateway-port-in-use",
      message: expect.stringMatching(/^cannot listen on \[::1\]:8788: another program/),
    })
    expect(listenError(error("EACCES"), "127.0.0.1", 80)).toMatchObject({
      code: "gateway-port-denied",
      message: expect.stringMatching(/port 80 \(ports below 1024 need privileges\); choose a port from 1024 up/),
    })
    expect(listenError(error("ENOTFOUND"), "gateway.invalid", 8788)).toMatchObject({
      code: "gateway-listen-failed",
      message: expect.stringMatching(/the host name gateway\.invalid does not resolve/),
    })
    expect(listenError(error("EMFILE"), "127.0.0.1", 8788)).toMatchObject({
      code: "gateway-listen-failed",
      message: "cannot listen on 127.0.0.1:8788: EMFILE, listen EMFILE",
    })
  })
})
