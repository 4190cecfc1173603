// bench/long-session: the scripted 300-turn session (test/fixtures/agent/long-session.ts) run through the
// agent against the replay server once per strategy, in one process: truncation only (our cache-aware
// default), staged compaction (mask old tool results, then summarize) and the Cline-style strategy (half
// truncation with dedup, as bench/fit.bench.ts simulates Cline). The window is made small (a 50k budget
// on claude-sonnet-4-5) so the session crosses it many times.
// Prompt caching is simulated from the request bodies as sent: a block marked with cache_control caches
// the prefix up to it (writes 1.25x, reads 0.1x, TTL ignored); a request reads the longest cached prefix
// ending at one of its breakpoints or up to 20 messages before one. Provider-side compaction (Anthropic's
// compaction edit, the only format of this session that has it) runs with a 100k budget and the provider's
// smallest trigger, 50k input tokens (the other rows' whole budget), against the replay server's compaction
// simulation: the summary is made up, the token accounting is what is measured (docs/decisions.md).

import { createHash } from "node:crypto"
import type { ContextManagerOptions } from "../src/history/context-manager.js"
import { TokenCounter } from "../src/history/tokens.js"
import { ANTHROPIC_MIN_COMPACTION_TRIGGER } from "../src/providers/context-management.js"
import { LONG_SESSION_REQUESTS, LONG_SESSION_STARTS, runLongSession } from "../test/fixtures/agent/long-session.js"
import type { Benchmark, Metric } from "./harness.js"

/** What one strategy's run cost and kept. */
interface Outcome {
  input: number
  read: number
  write: number
  summaries: number
  /** Answers that opened with the provider's compaction item. */
  compactions: number
  /** Share of the agent's requests that carried the task and the latest request. */
  kept: number
}

const RESERVE = 150_000
/** The provider-side run's reserve: a 100k budget on the 200k window, so requests can reach the 50k trigger. */
const PROVIDER_RESERVE = 100_000

/** Runs the session with `options` (and the provider's compaction) and simulates caching over the requests it sent. */
async function measure(
  counter: TokenCounter,
  options: ContextManagerOptions,
  providerCompaction?: { trigger: number },
): Promise<Outcome> {
  const run = await runLongSession({ reserve: RESERVE, ...options }, false, providerCompaction)
  try {
    const answered = run.server.requests.filter((r) => r.outcome === "answered")
    const tokens = new Map<string, number>()
    const cache = new Set<string>()
    const out: Outcome = { input: 0, read: 0, write: 0, summaries: 0, compactions: 0, kept: 0 }
    let turns = 0
    let kept = 0
    for (const r of answered) {
      const body = r.body as { system?: unknown; tools?: unknown; messages: unknown[] }
      const units: unknown[] = [{ system: body.system, tools: body.tools }, ...body.messages]
      const keys: string[] = []
      const sums: number[] = []
      const marks: number[] = []
      let key = ""
      let sum = 0
      units.forEach((unit, i) => {
        const json = JSON.stringify(unit)
        if (json.includes('"cache_control"')) marks.push(i)
        const plain = JSON.stringify(unit, (k, v) => (k === "cache_control" ? undefined : v))
        let n = tokens.get(plain)
        if (n === undefined) {
          n = counter.countText(plain)
          tokens.set(plain, n)
        }
        key = createHash("sha1").update(key).update(plain).digest("base64")
        sum += n
        keys.push(key)
        sums.push(sum)
      })
      let read = 0
      for (const b of marks) {
        for (let p = b; p >= Math.max(0, b - 20); p--) {
          if (cache.has(keys[p]!)) {
            read = Math.max(read, sums[p]!)
            break
          }
        }
      }
      const last = marks.length ? Math.max(...marks) : -1
      const write = last >= 0 ? Math.max(0, sums[last]! - read) : 0
      for (const b of marks) cache.add(keys[b]!)
      out.input += sum
      out.read += read
      out.write += write
      if (r.compacted) out.compactions++
      if (r.summary) out.summaries++
      else {
        const text = JSON.stringify(body)
        const latest = LONG_SESSION_REQUESTS[LONG_SESSION_STARTS.filter((s) => s <= turns).length - 1]!
        if (text.includes(LONG_SESSION_REQUESTS[0]) && text.includes(latest)) kept++
        turns++
      }
    }
    out.kept = (100 * kept) / Math.max(1, turns)
    return out
  } finally {
    await run.server.close()
  }
}

const cost = (o: Outcome) => o.input - o.read - o.write + 1.25 * o.write + 0.1 * o.read

const longSession: Benchmark = {
  name: "long-session",
  async run(): Promise<Metric[]> {
    const counter = await TokenCounter.create()
    const truncate = await measure(counter, {})
    const staged = await measure(counter, { compaction: {} })
    const cline = await measure(counter, { strategy: "half" })
    // Anthropic refuses a compaction trigger under 50k input tokens: the window is made large enough to reach it.
    const provider = await measure(
      counter,
      { reserve: PROVIDER_RESERVE },
      { trigger: ANTHROPIC_MIN_COMPACTION_TRIGGER },
    )
    const peer = (value: number) => ({ name: "Cline-style", value })
    const rows = (label: string, o: Outcome): Metric[] => [
      {
        name: `${label}: input cost (million base-input-token units)`,
        unit: "M",
        ours: cost(o) / 1e6,
        peer: peer(cost(cline) / 1e6),
        better: "lower",
        ...(label === "mask then summarize"
          ? {
              target: "≤ 0.6x the Cline-style cost, task kept in 100% of requests",
              met: cost(o) <= 0.6 * cost(cline) && o.kept === 100,
            }
          : {}),
      },
      {
        name: `${label}: total input tokens`,
        unit: "M",
        ours: o.input / 1e6,
        peer: peer(cline.input / 1e6),
        better: "lower",
      },
      {
        name: `${label}: cache reads, share of input tokens`,
        unit: "%",
        ours: (100 * o.read) / o.input,
        peer: peer((100 * cline.read) / cline.input),
        better: "higher",
      },
      {
        name: `${label}: summarizing calls`,
        unit: "calls",
        ours: o.summaries,
        peer: peer(cline.summaries),
        better: "lower",
      },
      ...(label.startsWith("provider-side")
        ? [
            {
              name: `${label}: provider compactions`,
              unit: "calls",
              ours: o.compactions,
              peer: peer(cline.compactions),
              better: "lower" as const,
            },
          ]
        : []),
      {
        name: `${label}: requests with the task and the latest request`,
        unit: "%",
        ours: o.kept,
        peer: peer(cline.kept),
        better: "higher",
      },
    ]
    return [
      ...rows("mask then summarize", staged),
      ...rows("truncate only", truncate),
      ...rows("provider-side (Anthropic compaction)", provider),
    ]
  },
}

export default longSession
