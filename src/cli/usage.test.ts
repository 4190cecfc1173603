/**
 * `promptline usage` over the trace folder of a real gateway run: the replay server as two upstreams, requests from
 * an Anthropic and an OpenAI Chat client on a simulated clock over eight days, one answered 429 first, one for a
 * model the catalog has no price for.
 */
import { appendFile, cp, mkdtemp, readdir, readFile, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { UsageReport } from "../cache/usage-report.js"
import { tracedGatewayRun } from "../gateway/test-helpers/traced-run.js"
import { runCli } from "./test-helpers/run.js"

const DAY = 86_400_000
const D1 = Date.UTC(2026, 10, 20, 10)

let dir: string
let traces: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "pl-usage-cli-"))
  traces = join(dir, "traces")
  await tracedGatewayRun(traces, [
    {
      at: D1,
      client: "anthropic",
      model: "claude-sonnet-4-5",
      conversation: "a",
      usage: { input: 1000, output: 200, cacheWrite: 4000 },
    },
    {
      at: D1 + 60_000,
      client: "anthropic",
      model: "claude-sonnet-4-5",
      conversation: "a",
      usage: { input: 100, output: 300, cacheRead: 4000 },
      rateLimitedFirst: true,
    },
    {
      at: D1 + DAY,
      client: "openai-chat",
      model: "gpt-4o",
      conversation: "b",
      usage: { input: 2000, output: 500, cacheRead: 1000 },
    },
    {
      at: D1 + 7 * DAY,
      client: "anthropic",
      model: "house-model",
      conversation: "c",
      usage: { input: 500, output: 50 },
    },
    {
      at: D1 + 7 * DAY + 1000,
      client: "openai-chat",
      model: "claude-sonnet-4-5",
      conversation: "d",
      usage: { input: 10, output: 10 },
    },
  ])
}, 60_000)
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

const cli = (args: string[], now?: number) =>
  runCli(["usage", ...args], { cwd: dir, env: { HOME: dir }, ...(now !== undefined ? { now } : {}) })

async function report(args: string[], now?: number): Promise<UsageReport> {
  const r = await cli([traces, "--json", ...args], now)
  expect(r).toMatchObject({ code: 0, stderr: "" })
  return JSON.parse(r.stdout) as UsageReport
}

// Catalog prices per million tokens: claude-sonnet-4-5 input 3, output 15, cache read 0.30, cache write 3.75;
// gpt-4o input 2.50, output 10, cache read 1.25.
const CLAUDE_INPUT = (1000 * 3 + 4000 * 3.75 + 100 * 3 + 4000 * 0.3 + 10 * 3) / 1e6
const CLAUDE_OUTPUT = ((200 + 300 + 10) * 15) / 1e6
const GPT_INPUT = (2000 * 2.5 + 1000 * 1.25) / 1e6
const GPT_OUTPUT = (500 * 10) / 1e6

describe("promptline usage", () => {
  it("sums the requests: tokens, cached share, cost at catalog prices with its output part, errors", async () => {
    const { total } = await report([])
    expect(total).toMatchObject({
      requests: 6,
      tokens: { input: 3610, cacheRead: 5000, cacheWrite: 4000, output: 1060 },
      errors: 1,
      fallbacks: 0,
      unreported: 0,
    })
    expect(total.cachedShare).toBeCloseTo(5000 / 12_610, 12)
    expect(total.cost.input).toBeCloseTo(CLAUDE_INPUT + GPT_INPUT, 12)
    expect(total.cost.output).toBeCloseTo(CLAUDE_OUTPUT + GPT_OUTPUT, 12)
    expect(total.cost.total).toBeCloseTo(CLAUDE_INPUT + GPT_INPUT + CLAUDE_OUTPUT + GPT_OUTPUT, 12)
    // The model without a price is marked, never counted as free.
    expect(total.cost).toMatchObject({ priced: 4, unpriced: 1, unpricedModels: ["house-model"] })

    const text = await cli([traces])
    expect(text.code).toBe(0)
    expect(text.stdout).toContain(`6 requests in ${traces}\n`)
    expect(text.stdout).toContain(
      "  tokens     3,610 input, 5,000 cached, 4,000 cache write, 1,060 output; 39.7% of prompt tokens cached\n",
    )
    expect(text.stdout).toContain(
      "  cost       $0.0384 ($0.0258 input + $0.0127 output) + $? for 1 request of house-model (no price)\n",
    )
    expect(text.stdout).toContain("  errors     1, fallbacks 0\n")
    expect(text.stdout).toContain("$?: no price for house-model (1 request not in the cost)")
  })

  it("groups by day, model, client, upstream and conversation, each group adding up to the total", async () => {
    const expected: Record<string, [string, number][]> = {
      day: [
        ["2026-11-20", 3],
        ["2026-11-21", 1],
        ["2026-11-27", 2],
      ],
      // By cost, most first; the model without a price last.
      model: [
        ["claude-sonnet-4-5", 4],
        ["gpt-4o", 1],
        ["house-model", 1],
      ],
      client: [
        ["anthropic", 4],
        ["openai-chat", 2],
      ],
      upstream: [
        ["main", 5],
        ["side", 1],
      ],
    }
    for (const by of ["day", "model", "client", "upstream", "conversation"]) {
      const r = await report(["--by", by])
      expect(r.by).toBe(by)
      if (expected[by]) expect(r.groups.map((g) => [g.key, g.requests])).toEqual(expected[by])
      else expect(r.groups).toHaveLength(4)
      const sum = (f: (g: UsageReport["total"]) => number) => r.groups.reduce((n, g) => n + f(g), 0)
      expect(sum((g) => g.requests)).toBe(r.total.requests)
      expect(sum((g) => g.tokens.cacheRead)).toBe(r.total.tokens.cacheRead)
      expect(sum((g) => g.errors)).toBe(r.total.errors)
      expect(sum((g) => g.cost.total)).toBeCloseTo(r.total.cost.total, 12)
      expect(sum((g) => g.cost.unpriced)).toBe(r.total.cost.unpriced)
    }
    const model = (await report(["--by", "model"])).groups[0]!
    expect(model.cost.output).toBeCloseTo(CLAUDE_OUTPUT, 12)
    expect(model.errors).toBe(1)

    const table = (await cli([traces, "--by", "model"])).stdout.split("\n")
    expect(table[0]).toBe(`Usage in ${traces}, by model`)
    expect(table[2]).toMatch(
      /^model +requests +input +cached +cache write +output +cached % +cost in +cost out +cost +errors +fallbacks$/,
    )
    expect(table[3]).toMatch(
      /^claude-sonnet-4-5 +4 +1,110 +4,000 +4,000 +510 +43\.9% +\$0\.0195 +\$0\.0076 +\$0\.0272 +1 +0$/,
    )
    expect(table[5]).toMatch(/^house-model +1 +500 +0 +0 +50 +0\.0% +\$\? +\$\? +\$\? +0 +0$/)
    expect(table[6]).toMatch(/^total +6 .* \$0\.0258\+\? +\$0\.0127\+\? +\$0\.0384\+\? +1 +0$/)
  })

  it("prints the same bytes for the same traces", async () => {
    const a = await cli([traces, "--json", "--by", "conversation"])
    const b = await cli([traces, "--json", "--by", "conversation"])
    expect(a.stdout).toBe(b.stdout)
  })

  it("counts from --since on: a day, a moment with its zone, or a span back from the clock read once", async () => {
    const requests = async (since: string, now?: number) => (await report(["--since", since], now)).total.requests
    expect(await requests("2026-11-21")).toBe(3)
    expect(await requests("2026-11-27T10:00:00Z")).toBe(2)
    expect(await requests("2026-11-27T10:00:01+00:00")).toBe(1)
    expect(await requests("7d", D1 + 8 * DAY)).toBe(3)
    expect(await requests("36h", D1 + 8 * DAY)).toBe(2)
    expect(await requests("1h", D1 + 30 * DAY)).toBe(0)
    expect((await report(["--since", "2026-11-21"])).since).toBe("2026-11-21T00:00:00.000Z")
    const none = await cli([traces, "--since", "1h"], D1 + 30 * DAY)
    expect(none.stdout).toMatch(/^No requests in \S+ since 2026-12-20T09:00:00\.000Z\.\n$/)
    for (const bad of ["yesterday", "2026-02-30", "2026-11-21T10:00", "7y", ""]) {
      const r = await cli([traces, "--since", bad])
      expect(r.code, bad).toBe(1)
      expect(r.stderr, bad).toContain("--since takes a day (2026-11-01, UTC), a moment with its zone")
    }
  })

  it("writes one self-contained HTML page: no script, nothing loaded from elsewhere", async () => {
    const r = await cli([traces, "--by", "day", "--html", "usage.html"])
    expect(r).toEqual({ code: 0, stdout: "HTML report written to usage.html\n", stderr: "" })
    const html = await readFile(join(dir, "usage.html"), "utf8")
    expect(html).toContain("<title>promptline usage: 6 requests by day</title>")
    expect(html).toContain(`content="default-src 'none'; style-src 'unsafe-inline'; img-src data:"`)
    expect(html).not.toMatch(/<script|\bsrc=|\bhref=|@import|url\(/i)
    expect(html).toMatch(/<td class="key">2026-11-27<\/td><td class="num">2<\/td>/)
    expect(html).toContain("$0.0384 ($0.0258 input + $0.0127 output) + $? for 1 request of house-model (no price)")
  })

  it("reads a trace with corrupt lines: each a warning naming its file and line, the rest counted", async () => {
    const copy = join(dir, "torn")
    await cp(traces, copy, { recursive: true })
    const [first] = (await readdir(join(copy, "conversations"))).sort()
    const file = join(copy, "conversations", first!)
    const lines = (await readFile(file, "utf8")).split("\n").filter(Boolean).length
    const good = JSON.parse((await readFile(file, "utf8")).split("\n")[0]!)
    await appendFile(
      file,
      `{"v":1,"n":9,"sent":\n${JSON.stringify({ ...good, usage: { input: "many" } })}\n${JSON.stringify({ v: 2 })}\n`,
    )
    const r = await cli([copy, "--json"])
    expect(r.code).toBe(0)
    expect(r.stderr.split("\n").filter(Boolean)).toEqual([
      `warning ${file}:${lines + 1}: not a JSON line; skipped [trace-line-invalid]`,
      `warning ${file}:${lines + 2}: the line's usage is not four token counts (input, output, cacheRead, cacheWrite); skipped [trace-line-invalid]`,
      `warning ${file}:${lines + 3}: not a promptline trace line (v 1 with n, at, model, upstream, sent and verdict); skipped [trace-line-invalid]`,
    ])
    const torn = JSON.parse(r.stdout) as UsageReport
    expect(torn.total).toEqual((await report([])).total)
    expect(torn.diagnostics.map((d) => [d.path, d.line])).toEqual([
      [file, lines + 1],
      [file, lines + 2],
      [file, lines + 3],
    ])
    // `traces` reads the same folder the same way.
    const listed = await runCli(["traces", copy], { cwd: dir, env: { HOME: dir } })
    expect(listed.code).toBe(0)
    expect(listed.stdout).toMatch(/^4 conversations in /)
    expect(listed.stderr).toContain(`warning ${file}:${lines + 1}: not a JSON line; skipped [trace-line-invalid]`)
  })

  it("says how to record traces when there are none, and names a folder that is not a trace folder", async () => {
    const home = join(dir, "fresh-home")
    const r = await runCli(["usage"], { cwd: dir, env: { HOME: home } })
    expect(r).toMatchObject({ code: 0, stderr: "" })
    expect(r.stdout).toMatch(
      /^No traces in \S+ yet: record requests with {2}promptline run --trace \S+ "a task" {2}or {2}promptline serve --trace /,
    )
    const json = JSON.parse(
      (await runCli(["usage", "--json", "--by", "model"], { cwd: dir, env: { HOME: home } })).stdout,
    )
    expect(json).toMatchObject({ v: 1, by: "model", total: { requests: 0 }, groups: [] })
    expect(json.diagnostics).toEqual([
      expect.objectContaining({
        level: "info",
        code: "no-traces",
        message: expect.stringContaining("record requests with"),
      }),
    ])
    const missing = await cli(["nowhere"])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toMatch(/nowhere: no such folder; record requests with {2}promptline run --trace/)
  })
})
