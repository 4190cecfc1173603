import { existsSync } from "node:fs"
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterEach, describe, expect, it } from "vitest"
import { parseReplayScript } from "../replay/script.js"
import { type ReplayServer, startReplayServer } from "../replay/server.js"
import { runCli } from "./test-helpers/run.js"

const servers: ReplayServer[] = []
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close()
})

async function workspace(): Promise<string> {
  const cwd = await mkdtemp(join(tmpdir(), "pl-run-"))
  await writeFile(join(cwd, "README.md"), "a sample\n")
  return cwd
}

async function server(turns: unknown[]): Promise<ReplayServer> {
  const s = await startReplayServer({ script: parseReplayScript({ version: 1, turns }) })
  servers.push(s)
  return s
}

const complete = { toolCalls: [{ name: "attempt_completion", input: { result: "done" } }] }
const ENV = { PATH: process.env.PATH, SHELL: "/bin/sh", OPENAI_API_KEY: "k" }

describe("promptline run, options", () => {
  for (const value of ["abc", "0", "-3", "2.5", ""]) {
    it(`--max-turns ${JSON.stringify(value)} is an invalid option naming the flag`, async () => {
      const r = await runCli(["run", "--no-mcp", "--cwd", await workspace(), "--max-turns", value, "do it"], {
        env: ENV,
      })
      expect(r.code).toBe(1)
      expect(r.stderr).toBe(`promptline: --max-turns must be a positive integer (got ${JSON.stringify(value)})\n`)
    })
  }

  it("--base-url that is not a URL fails at once, before any request or retry", async () => {
    const r = await runCli(
      ["run", "--no-mcp", "--cwd", await workspace(), "--provider", "openai", "--base-url", "not a url", "do it"],
      { env: ENV },
    )
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/^promptline: the base URL "not a url" is not an http:\/\/ or https:\/\/ URL/)
    expect(r.stdout).not.toMatch(/retry/)
  })

  it("sends the session id as OpenAI prompt_cache_key and shows that an unknown model got the default window", async () => {
    const replay = await server([complete, complete])
    const cwd = await workspace()
    const args = ["run", "--no-mcp", "--cwd", cwd, "--provider", "openai", "--format", "openai-responses"]
    const r = await runCli([...args, "--model", "acme-coder-9", "--base-url", replay.urls.openai, "do it"], {
      env: ENV,
    })
    expect(r.code).toBe(0)
    const id = /^session (\S+)/m.exec(r.stdout)?.[1]
    expect(id).toBeDefined()
    expect((replay.requests[0]!.body as { prompt_cache_key?: string }).prompt_cache_key).toBe(id)
    expect(r.stdout).toMatch(/warning model "acme-coder-9" is not in the catalog.*\[model-unknown\]/)
  })

  it("--resume goes on with the session's model, and a new task after completion joins the last user turn", async () => {
    const replay = await server([complete, complete])
    const cwd = await workspace()
    const env = { ...ENV, ANTHROPIC_API_KEY: "k" }
    const base = ["run", "--no-mcp", "--cwd", cwd, "--base-url", replay.urls.anthropic]
    const first = await runCli([...base, "--model", "claude-opus-4-1", "first task"], { env })
    expect(first.code).toBe(0)
    const id = /^session (\S+)/m.exec(first.stdout)![1]!
    const dir = join(cwd, ".promptline", "sessions", id)
    await writeFile(join(dir, "change-log.json"), "{ damaged")
    const second = await runCli([...base, "--resume", id, "second task"], { env })
    expect(second.code).toBe(0)
    // The damaged change log is named, with the fact that it was rebuilt; no stack trace.
    expect(second.stderr).toMatch(/^warning .*change-log\.json: .*starts empty.*\[change-log-rebuilt\]$/m)
    expect(second.stderr).not.toMatch(/\n\s+at /)
    const body = replay.requests[1]!.body as { model: string; messages: { role: string; content: unknown[] }[] }
    expect(body.model).toBe("claude-opus-4-1")
    expect(body.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"])
    const last = JSON.stringify(body.messages[2])
    expect(last).toContain("tool_result")
    expect(last).toContain("second task")
    // The cache markers sit on two different user turns: the first message and the last.
    const marked = body.messages.map((m) => JSON.stringify(m).includes("cache_control"))
    expect(marked).toEqual([true, false, true])
  })

  it("--resume with an explicit --model says so and records the new model", async () => {
    const replay = await server([complete, complete])
    const cwd = await workspace()
    const env = { ...ENV, ANTHROPIC_API_KEY: "k" }
    const base = ["run", "--no-mcp", "--cwd", cwd, "--base-url", replay.urls.anthropic]
    const first = await runCli([...base, "--model", "claude-opus-4-1", "first task"], { env })
    const id = /^session (\S+)/m.exec(first.stdout)![1]!
    const second = await runCli([...base, "--resume", id, "--model", "claude-sonnet-4-5", "go on"], { env })
    expect(second.code).toBe(0)
    expect(second.stderr).toBe(
      `note: session ${id} was started with claude-opus-4-1 (anthropic); continuing with claude-sonnet-4-5 (anthropic) as --model asks\n`,
    )
    expect((replay.requests[1]!.body as { model: string }).model).toBe("claude-sonnet-4-5")
    const meta = JSON.parse(await readFile(join(cwd, ".promptline", "sessions", id, "session.json"), "utf8"))
    expect(meta.model).toBe("claude-sonnet-4-5")
  })

  it("--replay in text mode marks figures as simulated and says where its copy of the workspace is", async () => {
    const example = fileURLToPath(new URL("../../examples/fix-failing-test.json", import.meta.url))
    const r = await runCli(["run", "--replay", example, "--no-mcp"], {
      env: { PATH: process.env.PATH, SHELL: "/bin/sh", HOME: process.env.HOME },
    })
    expect(r.code).toBe(0)
    expect(r.stdout).toContain("(simulated: scripted model, no cache or cost)")
    // The calibration of the estimate rests on the replay server's usage too, and says so.
    expect(r.stdout).toMatch(
      /^token estimate for \S+: reported ÷ counted \d\.\d{3} over \d+ requests \(simulated: the replay server's usage; kept in the session\)$/m,
    )
    expect(r.stdout).not.toContain("cache hit")
    expect(r.stdout).not.toMatch(/\$\d/)
    const copy = /the copy stays in (\S+) for you/.exec(r.stdout)?.[1]
    expect(copy).toBeDefined()
    expect(existsSync(copy!)).toBe(true)
    await rm(dirname(copy!), { recursive: true, force: true })
  })
})
