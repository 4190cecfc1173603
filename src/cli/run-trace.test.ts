import { mkdtemp, readdir, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { readTraceFile } from "../cache/trace-read.js"
import { parseReplayScript } from "../replay/script.js"
import { type ReplayServer, startReplayServer } from "../replay/server.js"
import { runCli } from "./test-helpers/run.js"

const servers: ReplayServer[] = []
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close()
})

const ENV = { PATH: process.env.PATH, SHELL: "/bin/sh", ANTHROPIC_API_KEY: "sk-ant-secret" }
const turns = [
  { toolCalls: [{ name: "read_file", input: { path: "README.md" } }] },
  { toolCalls: [{ name: "attempt_completion", input: { result: "done" } }] },
]

async function setup(): Promise<{ cwd: string; replay: ReplayServer }> {
  const cwd = await mkdtemp(join(tmpdir(), "pl-run-trace-"))
  await writeFile(join(cwd, "README.md"), "a sample\n")
  const replay = await startReplayServer({ script: parseReplayScript({ version: 1, turns }) })
  servers.push(replay)
  return { cwd, replay }
}

describe("promptline run --trace", () => {
  it("records each request with its verdict and shows the verdict after each answer", async () => {
    const { cwd, replay } = await setup()
    const args = ["run", "--no-mcp", "--cwd", cwd, "--base-url", replay.urls.anthropic, "--model", "claude-sonnet-4-5"]
    const r = await runCli([...args, "--trace", "traces", "read the readme"], { cwd, env: ENV })
    expect(r.stderr).toBe("")
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^cache #1: first: 0% cached$/m)
    // The replay server reports no cache reads, so the second request reads less than predicted.
    expect(r.stdout).toMatch(/^cache #2: miss: provider read 0 tokens, \d+ predicted, with no visible cause/m)
    const [name] = await readdir(join(cwd, "traces", "conversations"))
    const lines = await readTraceFile(join(cwd, "traces", "conversations", name!))
    expect(lines).toHaveLength(2)
    expect(lines[1]).toMatchObject({
      clientApi: "promptline",
      upstream: { format: "anthropic", provider: "anthropic" },
      model: "claude-sonnet-4-5",
      usage: { cacheRead: 0 },
    })
    expect(lines[1]!.durationMs).toBeGreaterThanOrEqual(0)
    expect(JSON.stringify(lines)).not.toContain("sk-ant-secret")
  })

  it("puts the verdict on a line of its own after text that does not end its line", async () => {
    const cwd = await mkdtemp(join(tmpdir(), "pl-run-trace-"))
    const script = parseReplayScript({
      version: 1,
      turns: [
        { text: "It is the entry point.", toolCalls: [{ name: "read_file", input: { path: "README.md" } }] },
        { text: "Done", toolCalls: [{ name: "attempt_completion", input: { result: "done" } }] },
      ],
    })
    await writeFile(join(cwd, "README.md"), "a sample\n")
    const replay = await startReplayServer({ script })
    servers.push(replay)
    const args = ["run", "--no-mcp", "--cwd", cwd, "--base-url", replay.urls.anthropic, "--trace", "t", "go"]
    const r = await runCli(args, { cwd, env: ENV })
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^It is the entry point\.\ncache #1: first: 0% cached$/m)
    expect(r.stdout).toMatch(/^Done\ncache #2: /m)
  })

  it("goes on when the trace cannot be written, and says so once", async () => {
    const { cwd, replay } = await setup()
    await writeFile(join(cwd, "taken"), "a file, not a folder\n")
    const args = ["run", "--no-mcp", "--cwd", cwd, "--base-url", replay.urls.anthropic, "--trace", "taken", "go"]
    const r = await runCli(args, { cwd, env: ENV })
    expect(r.code).toBe(0)
    expect(r.stderr.match(/\[trace-unwritable\]/g)).toHaveLength(1)
    expect(r.stderr).toMatch(/^warning cannot write the trace in taken: .*ENOTDIR/m)
  })

  it("prints the verdicts as cache JSON lines with --json", async () => {
    const { cwd, replay } = await setup()
    const args = ["run", "--no-mcp", "--cwd", cwd, "--base-url", replay.urls.anthropic, "--json", "--trace", "t", "go"]
    const r = await runCli(args, { cwd, env: ENV })
    expect(r.code).toBe(0)
    const cache = r.stdout
      .split("\n")
      .filter((l) => l.startsWith('{"type":"cache"'))
      .map((l) => JSON.parse(l))
    expect(cache.map((c) => [c.request, c.verdict.verdict])).toEqual([
      [1, "first"],
      [2, "miss"],
    ])
  })
})
