import { mkdtemp, readFile, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { writeScriptedTrace } from "../cache/test-helpers/scripted-trace.js"
import { tracedGatewayRun } from "../gateway/test-helpers/traced-run.js"
import { TokenCounter } from "../history/tokens.js"
import { runCli } from "./test-helpers/run.js"

let dir: string
let file: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "pl-traces-cli-"))
  file = await writeScriptedTrace(join(dir, "traces"), await TokenCounter.create())
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe("promptline traces", () => {
  it("lists each conversation with its totals and its misses with their causes", async () => {
    const r = await runCli(["traces", "traces"], { cwd: dir, env: { HOME: dir } })
    expect(r.stderr).toBe("")
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^1 conversation in /)
    expect(r.stdout).toMatch(/8 requests {2}anthropic → example {2}claude-sonnet-4-5/)
    expect(r.stdout).toMatch(/miss at #4: tools changed: \S+ reordered/)
    expect(r.stdout).toMatch(
      /miss at #7: cache lifetime exceeded: 60 min since the previous request, lifetime 5\.0 min/,
    )
    const json = JSON.parse((await runCli(["traces", "traces", "--json"], { cwd: dir, env: { HOME: dir } })).stdout)
    expect(json.conversations[0]).toMatchObject({ requests: 8, misses: [{ n: 4 }, { n: 7 }] })
    expect(json.conversations[0].cachedShare).toBeGreaterThan(0.4)
  })

  it("counts output tokens in the cost, and says which requests reported no usage", async () => {
    const gateway = join(dir, "gateway-traces")
    await tracedGatewayRun(gateway, [
      {
        at: Date.UTC(2026, 10, 20),
        client: "anthropic",
        model: "claude-sonnet-4-5",
        conversation: "a",
        usage: { input: 1000, output: 2000, cacheRead: 10_000 },
        rateLimitedFirst: true,
      },
    ])
    const r = await runCli(["traces", gateway], { cwd: dir, env: { HOME: dir } })
    expect(r.stderr).toBe("")
    // At $3 input, $0.30 cache read and $15 output per million: $0.0060 of input, $0.0300 of output.
    expect(r.stdout).toContain("; 2,000 output tokens\n  cost $0.0360 ($0.0060 input + $0.0300 output)")
    // The 429 is an error, not a request that hid its usage; a scripted trace without usage says so.
    expect(r.stdout).not.toContain("without reporting usage")
    const scripted = await runCli(["traces", "traces"], { cwd: dir, env: { HOME: dir } })
    expect(scripted.stdout).toContain("(8 succeeded without reporting usage, not counted)")
    const json = JSON.parse((await runCli(["traces", gateway, "--json"], { cwd: dir, env: { HOME: dir } })).stdout)
    expect(json.conversations[0]).toMatchObject({ requests: 2, unreported: 0, tokens: { output: 2000 } })
    expect(json.conversations[0].cost.output).toBeCloseTo(0.03, 12)
  })

  it("uses the user config's trace folder when no folder is given, and names a folder that is not one", async () => {
    // The trace folder is the user's to choose: it is read from the user's own config file.
    const config = join(dir, "xdg", "promptline", "promptline.config.json")
    const { mkdir, writeFile } = await import("node:fs/promises")
    await mkdir(join(dir, "xdg", "promptline"), { recursive: true })
    await writeFile(config, JSON.stringify({ traces: { dir: join(dir, "traces") } }))
    try {
      const r = await runCli(["traces"], {
        cwd: dir,
        env: { HOME: join(dir, "home"), XDG_CONFIG_HOME: join(dir, "xdg") },
      })
      expect(r.stdout).toContain(join(dir, "traces"))
    } finally {
      await rm(join(dir, "xdg"), { recursive: true })
    }
    const missing = await runCli(["traces", "nowhere"], { cwd: dir, env: { HOME: dir } })
    expect(missing.code).toBe(1)
    expect(missing.stderr).toMatch(
      /nowhere: no such folder; record requests with {2}promptline run --trace \S*nowhere "a task" {2}or {2}promptline serve --trace \S*nowhere/,
    )
    const other = await runCli(["traces", "."], { cwd: join(dir, "traces", "conversations"), env: { HOME: dir } })
    expect(other.code).toBe(1)
    expect(other.stderr).toMatch(
      /conversations: not a trace folder \(it has no conversations\/ folder\); record requests/,
    )
  })

  it("with no folder given and none recorded yet, says so and how to record one", async () => {
    const home = join(dir, "fresh-home")
    const r = await runCli(["traces"], { cwd: dir, env: { HOME: home } })
    expect(r).toMatchObject({ code: 0, stderr: "" })
    expect(r.stdout).toMatch(/^No traces in \S+ yet: record requests with {2}promptline run --trace \S+ "a task"/)
    const json = await runCli(["traces", "--json"], { cwd: dir, env: { HOME: home } })
    expect(JSON.parse(json.stdout)).toEqual({ dir: expect.stringContaining("promptline"), conversations: [] })
  })
})

describe("promptline inspect --trace", () => {
  it("shows the window, sections, tools, cache layout and verdict of a traced request", async () => {
    const r = await runCli(["inspect", "--trace", file, "--request", "4", "--width", "100"], {
      cwd: dir,
      env: { HOME: dir },
    })
    expect(r.stderr).toBe("")
    expect(r.stdout).toMatch(/^Request 4 of 8: claude-sonnet-4-5/)
    expect(r.stdout).toMatch(/Context window: [\d,]+ of 200,000 tokens used/)
    expect(r.stdout).toMatch(/System prompt: \d+ sections/)
    expect(r.stdout).toMatch(/Rules\s+[\d,]+/)
    expect(r.stdout).toMatch(/Tools: \d+, [\d,]+ tokens/)
    expect(r.stdout).toContain("breakpoint at system[0] (5m)")
    expect(r.stdout).toMatch(/miss: tools changed: \S+ reordered; [\d,]+ tokens not read, \$0\.\d+ more than a hit/)
    expect(r.stdout).toMatch(/> #4 {4}miss/)
  })

  it("prints JSON, writes HTML, and names a request the trace does not have", async () => {
    const json = JSON.parse(
      (await runCli(["inspect", "--trace", file, "--json"], { cwd: dir, env: { HOME: dir } })).stdout,
    )
    expect(json).toMatchObject({ request: 8, requests: 8, cache: { verdict: { verdict: "hit" } } })
    expect(json.timeline).toHaveLength(8)
    const html = await runCli(["inspect", "--trace", file, "--html", "r.html"], { cwd: dir, env: { HOME: dir } })
    expect(html.stdout).toBe("HTML report written to r.html\n")
    expect(await readFile(join(dir, "r.html"), "utf8")).toContain('id="timeline-bars"')
    const missing = await runCli(["inspect", "--trace", file, "--request", "9"], { cwd: dir, env: { HOME: dir } })
    expect(missing).toMatchObject({ code: 1 })
    expect(missing.stderr).toContain("has requests 1 to 8; there is no request 9")
    const bad = await runCli(["inspect", "--trace", file, "--request", "0"], { cwd: dir, env: { HOME: dir } })
    expect(bad.stderr).toContain("expected a request number from 1")
  })

  it("names the file and line of a line that is not a trace line, without a stack trace", async () => {
    const { writeFile } = await import("node:fs/promises")
    const torn = join(dir, "torn.jsonl")
    const first = (await readFile(file, "utf8")).split("\n")[0]!
    await writeFile(torn, `${first}\n{"v":1,"n":2,"sent":\n`)
    const r = await runCli(["inspect", "--trace", "torn.jsonl"], { cwd: dir, env: { HOME: dir } })
    expect(r.code).toBe(1)
    expect(r.stderr).toBe(`promptline: ${torn}:2: not a JSON line\n`)
    await writeFile(torn, `${first}\n{"v":2}\n`)
    const other = await runCli(["inspect", "--trace", "torn.jsonl"], { cwd: dir, env: { HOME: dir } })
    expect(other.stderr).toMatch(/torn\.jsonl:2: not a promptline trace line/)
  })
})
