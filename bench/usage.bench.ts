// bench/usage: `promptline usage` over a large trace folder (20 conversations of 5,000 requests, lines as the trace
// store writes them), read line by line and summed by day, against reading each file whole with readTraceFile (what
// `traces` did before) and summing the same way; and the gateway status's update per finished request, the one step
// the status page adds to a request (after its answer ended).

import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { defaultPrompt, encoded, scriptHistory } from "../src/cache/test-helpers/script.js"
import { readTraceFile } from "../src/cache/trace-read.js"
import { TraceStore } from "../src/cache/trace-store.js"
import { UsageTally, usageEntryOfLine } from "../src/cache/usage.js"
import { usageGroupOf } from "../src/cache/usage-grouping.js"
import { usageReport } from "../src/cache/usage-report.js"
import { GatewayStatus } from "../src/gateway/status.js"
import { TokenCounter } from "../src/history/tokens.js"
import { PriceList } from "../src/models/cost.js"
import { sameFormatRecord } from "./gateway-bodies.js"
import { type Benchmark, type Metric, quantile, sample } from "./harness.js"

const FILES = 20
const LINES = 5000
const RECORDS = 100_000

/** A trace folder of FILES conversations of LINES requests each, made from one line the store wrote. */
async function bigFolder(dir: string): Promise<void> {
  const seed = join(dir, "seed")
  const store = new TraceStore(seed, { counter: await TokenCounter.create() })
  const sent = encoded("anthropic", defaultPrompt(), scriptHistory(3), 0)
  await store.record({
    at: Date.UTC(2026, 10, 1),
    clientApi: "anthropic",
    upstream: { format: "anthropic", name: "main", provider: "anthropic" },
    model: "claude-sonnet-4-5",
    sent: { body: sent.body },
    usage: { input: 1200, output: 300, cacheRead: 20_000, cacheWrite: 500 },
    status: 200,
  })
  const [name] = await readdir(join(seed, "conversations"))
  const line = JSON.parse((await readFile(join(seed, "conversations", name!), "utf8")).split("\n")[0]!)
  await mkdir(join(dir, "big", "conversations"), { recursive: true })
  for (let f = 0; f < FILES; f++) {
    const lines = Array.from({ length: LINES }, (_, i) =>
      JSON.stringify({
        ...line,
        n: i + 1,
        at: line.at + (f * LINES + i) * 60_000,
        model: i % 7 ? line.model : "house",
      }),
    )
    await writeFile(join(dir, "big", "conversations", `c${f}.jsonl`), `${lines.join("\n")}\n`)
  }
}

/** The same sums, each file read whole. */
async function wholeFiles(dir: string): Promise<number> {
  const prices = new PriceList()
  const total = new UsageTally(prices)
  const groups = new Map<string, UsageTally>()
  const folder = join(dir, "conversations")
  for (const name of (await readdir(folder)).sort())
    for (const line of await readTraceFile(join(folder, name))) {
      const entry = usageEntryOfLine(line)
      total.add(entry)
      const key = usageGroupOf(line, "day")
      let group = groups.get(key)
      if (!group) {
        group = new UsageTally(prices)
        groups.set(key, group)
      }
      group.add(entry)
    }
  return total.totals().requests
}

const usage: Benchmark = {
  name: "usage",
  async run(): Promise<Metric[]> {
    const dir = await mkdtemp(join(tmpdir(), "pl-bench-usage-"))
    try {
      await bigFolder(dir)
      const big = join(dir, "big")
      const lines = FILES * LINES
      const streamed = quantile(await sample(() => usageReport(big, { by: "day" }), 5, 1), 0.5)
      const whole = quantile(await sample(() => wholeFiles(big), 5, 1), 0.5)
      const status = new GatewayStatus({ startedAt: 0 })
      const record = sameFormatRecord()
      const records = Array.from({ length: RECORDS }, (_, seq) => ({ ...record, seq }))
      const add = quantile(
        await sample(
          () => {
            for (const r of records) status.add(r)
          },
          10,
          2,
        ),
        0.5,
      )
      return [
        {
          name: `usage --by day over ${lines.toLocaleString("en-US")} trace lines, read line by line`,
          unit: "lines/s",
          ours: Math.round(lines / (streamed / 1e6)),
          peer: { name: "each file read whole (readTraceFile)", value: Math.round(lines / (whole / 1e6)) },
          better: "higher",
        },
        {
          name: "gateway status update per finished request",
          unit: "µs",
          ours: add / RECORDS,
          better: "lower",
        },
      ]
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  },
}

export default usage
