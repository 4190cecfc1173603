import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { okText, startFaultUpstream } from "../gateway/test-helpers/fault-upstream.js"
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
  let finished = false
  const running = main(["serve", ...argv], io).finally(() => {
    finished = true
  })
  for (let i = 0; i < 200 && !/"event":"listening"|gateway on/.test(stdout); i++) {
    if (finished) break
    await new Promise((r) => setTimeout(r, 10))
  }
  if (!finished) await until(() => stdout)
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
        // The log line prices a model the catalog lacks from the user's own row.
        models: [{ id: "claude-x", contextWindow: 200000, maxOutput: 8000, prices: { input: 10, output: 100 } }],
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
    expect(human.stdout).toMatch(/ {2}status {8}http:\/\/127\.0\.0\.1:\d+\/promptline\/status /)
    // 300 input tokens at $10 and 8 output tokens at $100 per million.
    expect(human.stdout).toMatch(/anthropic → up \(anthropic\) claude-x in 300 out 8 cached 0% \$0\.0038 \d+ ms 200/)
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
    expect(lines[0].status).toBe(`${lines[0].url}/promptline/status`)
    expect(lines[1]).toMatchObject({ clientFormat: "anthropic", model: "claude-x", status: 200, usage: { input: 300 } })
    expect(lines[1].cost.input).toBeCloseTo(0.003, 12)
    expect(lines[1].cost.output).toBeCloseTo(0.0008, 12)
    expect(lines[1].cost.total).toBeCloseTo(0.0038, 12)
    expect(json.stdout + human.stdout).not.toContain("sk-fake-cli-key")
  })

  it("names a route option its mode leaves unused, with the file, line, route and option, and serves", async () => {
    dir = await mkdtemp(join(tmpdir(), "pl-serve-"))
    replay = await startReplayServer({ script: scriptOf(finalTurn) })
    const config = join(dir, "gw.json")
    const routes = [{ match: "claude-*", upstream: "up", mode: "same-format", fit: true }]
    const gateway = { upstreams: { up: { provider: "anthropic", baseUrl: replay.url, keyEnv: "UP_KEY" } }, routes }
    await writeFile(config, JSON.stringify({ gateway }, null, 2))
    const body = { model: "claude-x", max_tokens: 5, messages: [{ role: "user", content: "hi" }] }
    let status = 0
    const run = await serve(["--port", "0", "--config", config], { UP_KEY: "sk-fake-cli-key-123456" }, async (out) => {
      const base = /(http:\/\/127\.0\.0\.1:\d+)/.exec(out())![1]!
      const answer = await fetch(`${base}/v1/messages`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      })
      status = answer.status
      await answer.text()
    })
    expect(run.code).toBe(0)
    expect(run.stderr).toBe(
      `error ${config}:15: route 1 ("claude-*") forwards requests unchanged ("mode": "same-format"), so its "fit" never applies; remove it, or set "mode": "translate" [config-route-option-unused]\n`,
    )
    // Served as the route says: forwarded unchanged.
    expect(status).toBe(200)
    expect(replay.requests[0]!.body).toEqual(body)
  })

  it("watches its config: a valid change is swapped in, an invalid one refused with file, line and cause", async () => {
    dir = await mkdtemp(join(tmpdir(), "pl-serve-"))
    const a = await startFaultUpstream("a", "anthropic")
    const b = await startFaultUpstream("b", "anthropic")
    const config = join(dir, "gw.json")
    const write = (to: string, port = 0) =>
      writeFile(
        config,
        JSON.stringify(
          {
            gateway: {
              port,
              upstreams: {
                a: { provider: "anthropic", baseUrl: a.url, keyEnv: "UP_KEY" },
                b: { provider: "anthropic", baseUrl: b.url, keyEnv: "UP_KEY" },
              },
              routes: [{ match: "*", upstream: to }],
            },
          },
          null,
          2,
        ),
      )
    await write("a")
    const texts: string[] = []
    const waitFor = async (out: () => string, pattern: RegExp) => {
      for (let i = 0; i < 1000 && !pattern.test(out()); i++) await new Promise((r) => setTimeout(r, 10))
    }
    try {
      const run = await serve(["--config", config, "--json"], { UP_KEY: "sk-fake-cli-key-123456" }, async (out) => {
        const base = JSON.parse(out().split("\n")[0]!).url as string
        const ask = async () => {
          const answer = await fetch(`${base}/v1/messages`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ model: "claude-x", max_tokens: 5, messages: [{ role: "user", content: "hi" }] }),
          })
          texts.push(JSON.stringify(await answer.json()))
        }
        await ask()
        await write("b")
        await waitFor(out, /config-reloaded/)
        await ask()
        await writeFile(config, '{ "gateway": { "routes": [ }')
        await waitFor(out, /config-refused/)
        await ask()
        await write("b", 1)
        await waitFor(out, /port changed/)
      })
      expect(run.code).toBe(0)
      const notes = run.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l))
        .filter((l) => typeof l.event === "string" && l.event.startsWith("config-"))
      expect(notes[0]).toEqual({ event: "config-reloaded", message: "config reloaded: 1 route" })
      expect(notes.find((n) => n.event === "config-refused")?.message).toMatch(
        new RegExp(
          `^config change refused, the previous config stays in force: ${config.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:1:`,
        ),
      )
      expect(notes.at(-1)?.message).toBe("config reloaded: 1 route; port changed, but keeps its value until a restart")
      expect(texts.map((t) => (t.includes(okText("a")) ? "a" : t.includes(okText("b")) ? "b" : t))).toEqual([
        "a",
        "b",
        "b",
      ])
    } finally {
      await Promise.all([a.close(), b.close()])
    }
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
