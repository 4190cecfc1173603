import { existsSync } from "node:fs"
import { mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterEach, describe, expect, it } from "vitest"
import { parseReplayScript } from "../replay/script.js"
import { type ReplayServer, startReplayServer } from "../replay/server.js"
import { runCli, testSessionsDir } from "./test-helpers/run.js"

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

  for (const [value, why] of [
    ["not a url", 'got "not a url"'],
    ["ftp://example.test", 'got "ftp://example.test"'],
    ["", "got an empty value"],
    ["  ", "got an empty value"],
  ]) {
    it(`--base-url ${JSON.stringify(value)} fails at once, naming the option, before any request (run and inspect)`, async () => {
      const cwd = await workspace()
      for (const args of [
        ["run", "--no-mcp", "--cwd", cwd, "--provider", "openai", "--base-url", value!, "do it"],
        ["inspect", "--no-mcp", "--cwd", cwd, "--exact", "--base-url", value!],
      ]) {
        const r = await runCli(args, { env: ENV })
        expect(r.code, args[0]).toBe(1)
        expect(r.stderr).toMatch(
          /option '--base-url <url>' argument .* is invalid\. expected an http:\/\/ or https:\/\/ URL/,
        )
        expect(r.stderr).toContain(why)
        expect(r.stdout).toBe("")
      }
      expect(await readdir(cwd)).toEqual(["README.md"])
    })
  }

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

  it("does not guess a provider for an id that names none: the prompt says unknown, and run asks for one", async () => {
    const cwd = await workspace()
    const prompt = await runCli(["prompt", "--no-mcp", "--cwd", cwd, "--model", "acme-coder-9"], { env: ENV })
    expect(prompt.stderr).toMatch(/"provider":"FILL IN: who serves it/)
    expect(prompt.stderr).not.toMatch(/"provider":"anthropic"/)
    const run = await runCli(["run", "--no-mcp", "--cwd", cwd, "--model", "acme-coder-9", "do it"], { env: ENV })
    expect(run.code).toBe(1)
    expect(run.stderr).toMatch(/no provider: the model's id does not say who serves it: use one of anthropic, /)
  })

  it("--resume goes on with the session's model, and a new task after completion joins the last user turn", async () => {
    const replay = await server([complete, complete])
    const cwd = await workspace()
    const env = { ...ENV, ANTHROPIC_API_KEY: "k" }
    const base = ["run", "--no-mcp", "--cwd", cwd, "--base-url", replay.urls.anthropic]
    const first = await runCli([...base, "--model", "claude-opus-4-1", "first task"], { env })
    expect(first.code).toBe(0)
    const id = /^session (\S+)/m.exec(first.stdout)![1]!
    const dir = join(testSessionsDir(cwd), id)
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

  it("writes nothing into the workspace; --resume finds the session in the state folder, or an old one in the workspace", async () => {
    const replay = await server([complete, complete, complete])
    const cwd = await workspace()
    const env = { ...ENV, ANTHROPIC_API_KEY: "k" }
    const base = ["run", "--no-mcp", "--cwd", cwd, "--base-url", replay.urls.anthropic, "--model", "claude-sonnet-5-5"]
    const first = await runCli([...base, "first task"], { env })
    expect(first.code).toBe(0)
    expect(await readdir(cwd)).toEqual(["README.md"])
    const id = /^session (\S+)/m.exec(first.stdout)![1]!
    expect(await readdir(join(testSessionsDir(cwd), id))).toContain("history.jsonl")
    // A session kept in the workspace by an older promptline: moved out on resume, with a note.
    await mkdir(join(cwd, ".promptline", "sessions"), { recursive: true })
    await rename(join(testSessionsDir(cwd), id), join(cwd, ".promptline", "sessions", id))
    const second = await runCli([...base, "--resume", id, "second task"], { env })
    expect(second.code).toBe(0)
    expect(second.stderr).toMatch(/^info .*: moved from the workspace .* \[session-moved\]$/m)
    expect(await readdir(cwd)).toEqual(["README.md"])
    const missing = await runCli([...base, "--resume", "20261129-000000-00000000", "go on"], { env })
    expect(missing.code).toBe(1)
    expect(missing.stderr).toMatch(
      /^promptline: no session "20261129-000000-00000000" for .* \(looked in .* and .*\)\n$/,
    )
  })

  it("--resume of a session whose history.jsonl is a folder says so in one line, no stack trace", async () => {
    const replay = await server([complete, complete])
    const cwd = await workspace()
    const env = { ...ENV, ANTHROPIC_API_KEY: "k" }
    const base = ["run", "--no-mcp", "--cwd", cwd, "--base-url", replay.urls.anthropic, "--model", "claude-sonnet-5-5"]
    const id = /^session (\S+)/m.exec((await runCli([...base, "first task"], { env })).stdout)![1]!
    const history = join(testSessionsDir(cwd), id, "history.jsonl")
    await rm(history)
    await mkdir(history)
    const r = await runCli([...base, "--resume", id, "go on"], { env })
    expect(r).toMatchObject({ code: 1, stdout: "" })
    expect(r.stderr).toBe(`promptline: ${history} is a folder; the session cannot be resumed\n`)
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
    const meta = JSON.parse(await readFile(join(testSessionsDir(cwd), id, "session.json"), "utf8"))
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
