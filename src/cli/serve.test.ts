import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { type ReplayServer, startReplayServer } from "../replay/server.js"
import { finalTurn, scriptOf } from "../replay/test-helpers/fixtures.js"
import { main } from "./main.js"

let replay: ReplayServer | undefined
let dir: string | undefined
afterEach(async () => {
  await replay?.close()
  if (dir) await rm(dir, { recursive: true, force: true })
  replay = dir = undefined
})

/** Runs `promptline serve` in-process until `until` resolves, then sends SIGTERM; returns what it printed. */
async function serve(argv: string[], env: Record<string, string>, until: (out: () => string) => Promise<void>) {
  let stdout = ""
  let stderr = ""
  const io = {
    stdout: (t: string) => {
      stdout += t
    },
    stderr: (t: string) => {
      stderr += t
    },
    cwd: dir!,
    env: { HOME: dir!, ...env },
    today: () => "2026-11-29",
    now: () => 1_780_000_000_000,
  }
  const running = main(["serve", ...argv], io)
  for (let i = 0; i < 200 && !/"event":"listening"|gateway on/.test(stdout); i++) {
    if (stderr !== "") break
    await new Promise((r) => setTimeout(r, 10))
  }
  if (stderr === "") await until(() => stdout)
  process.emit("SIGTERM")
  return { code: await running, stdout, stderr }
}

describe("promptline serve", () => {
  it("prints each client API's base URL, then one line per request; --json gives JSON lines", async () => {
    dir = await mkdtemp(join(tmpdir(), "pl-serve-"))
    replay = await startReplayServer({ script: scriptOf(finalTurn, finalTurn) })
    const config = join(dir, "gw.json")
    await writeFile(
      config,
      JSON.stringify({
        gateway: {
          upstreams: { up: { provider: "anthropic", baseUrl: replay.url, keyEnv: "UP_KEY" } },
          routes: [{ match: "claude-*", upstream: "up" }],
        },
      }),
    )
    const ask = (base: string) =>
      fetch(`${base}/v1/messages`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "claude-x", max_tokens: 5, messages: [{ role: "user", content: "hi" }] }),
      }).then((r) => r.text())
    const base = (out: string) => /(http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1]!
    const human = await serve(
      ["--port", "0", "--config", config],
      { UP_KEY: "sk-fake-cli-key-123456" },
      async (out) => {
        await ask(base(out()))
      },
    )
    expect(human.stderr).toBe("")
    expect(human.code).toBe(0)
    expect(human.stdout).toMatch(/ANTHROPIC_BASE_URL=http:\/\/127\.0\.0\.1:\d+ /)
    expect(human.stdout).toMatch(/OPENAI_BASE_URL=http:\/\/127\.0\.0\.1:\d+\/v1 /)
    expect(human.stdout).toMatch(/GOOGLE_GEMINI_BASE_URL=/)
    expect(human.stdout).toMatch(/1 route: claude-\* → up/)
    expect(human.stdout).toContain("  state         memory (this instance only)\n")
    expect(human.stdout).toMatch(/anthropic → up \(anthropic\) claude-x in 300 out 8 cached 0% \d+ ms 200/)
    const json = await serve(
      ["--port", "0", "--config", config, "--json"],
      { UP_KEY: "sk-fake-cli-key-123456" },
      async (out) => {
        await ask(JSON.parse(out().split("\n")[0]!).url)
      },
    )
    const lines = json.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
    expect(lines[0]).toMatchObject({ event: "listening", routes: 1, store: "memory" })
    expect(lines[1]).toMatchObject({ clientFormat: "anthropic", model: "claude-x", status: 200, usage: { input: 300 } })
    expect(json.stdout + human.stdout).not.toContain("sk-fake-cli-key")
  })

  it("refuses an unsafe host and a bad port, naming the fix", async () => {
    dir = await mkdtemp(join(tmpdir(), "pl-serve-"))
    const open = await serve(["--host", "0.0.0.0", "--port", "0"], {}, async () => {})
    expect(open.code).toBe(1)
    expect(open.stderr).toMatch(/set gateway\.tokenEnv/)
    const port = await serve(["--port", "http"], {}, async () => {})
    expect(port.stderr).toMatch(/--port must be a whole number/)
  })
})
