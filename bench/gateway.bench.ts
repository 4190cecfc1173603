// bench/gateway: `promptline serve` as a child process against one local upstream (the replay server, scripted to
// answer every request), measured in the same run as calling the upstream directly and as claude-code-router
// 2.0.0 (a child process too, same machine, same upstream).
// 1. Added latency, p50 and p99: a small same-format Anthropic request, and an Anthropic → OpenAI Chat
//    translation of a 200-message (~100k-token) history, where claude-code-router does the same translation; each
//    round calls the upstream directly first, then the proxies in an order that rotates by round. The small request
//    is measured twice: while the processes warm up (V8 still compiling what a request runs), and in their steady
//    state, after ten thousand rounds.
// 2. Cache: bench/fit's generated history replayed for 200 turns by an Anthropic client (no cache markers of its
//    own) through a translate route with `cache: "optimize"` to an Anthropic upstream that bills like one (the
//    replay server's cache simulation, 15 s between turns on its clock).
// 3. Requests per second with 200 concurrent streams against the bare pipe proxy (same run, the median of seven
//    turns taken in alternation), then a fresh gateway's requests per second and RSS with 200 concurrent streams.
//    With PROMPTLINE_BENCH_LOAD=1 also the load run: 200 concurrent streams for 60 s, then RSS before, at peak
//    and after.

import { type ReplayServer, startReplayServer } from "../src/replay/server.js"
import { generateHistory } from "../test/fixtures/history/generate.js"
import { cacheReplay } from "./cache-replay.js"
import { historyBody, smallAnthropic } from "./gateway-bodies.js"
import {
  liveHeapOf,
  type ProxyProcess,
  post,
  rssOf,
  startCcr,
  startPipeProxy,
  startPromptline,
} from "./gateway-procs.js"
import { type Benchmark, formatFigure, type Metric, quantile } from "./harness.js"

const KEY = { "x-api-key": "sk-fake", "anthropic-version": "2023-06-01" }
const CHAT_KEY = { authorization: "Bearer sk-fake" }
const OK = { text: "Done: the config is parsed in src/config/config.ts." }

/** A stream that ended as its format ends one. */
const complete = (body: string) => body.includes("message_stop") || body.includes("[DONE]")

/**
 * Sends `payload` to each target in turn, `rounds` times after `warmup` rounds; each target's times in ms. The
 * first target (the upstream called directly) opens every round; the others take turns in the order after it, so
 * that no proxy always follows the same one (a proxy still busy with the last request's record would otherwise
 * slow the next one in every round, never itself).
 */
async function interleaved(
  targets: { url: string; payload: string; headers: Record<string, string> }[],
  rounds: number,
  warmup: number,
): Promise<number[][]> {
  const times = targets.map(() => [] as number[])
  const others = targets.length - 1
  for (let r = 0; r < warmup + rounds; r++) {
    for (let turn = 0; turn < targets.length; turn++) {
      const i = turn === 0 ? 0 : 1 + ((turn - 1 + r) % others)
      const t = targets[i]!
      const reply = await post(t.url, t.payload, t.headers)
      if (reply.status !== 200 || !complete(reply.body))
        throw new Error(`${t.url} answered ${reply.status}: ${reply.body.slice(0, 300)}`)
      if (r >= warmup) times[i]!.push(reply.ms)
    }
  }
  return times
}

/**
 * The added latency (ms): p50 and p99 of the per-round differences `via[r] - direct[r]` (the two calls of a round
 * run back to back, so the machine's load at that moment cancels out; a difference of the two p99s would not).
 */
const added = (via: number[], direct: number[]) => {
  const differences = via.map((ms, r) => ms - direct[r]!)
  return { p50: quantile(differences, 0.5), p99: quantile(differences, 0.99) }
}

/**
 * 200 streams at once, each sending small requests one after another, for `seconds` or until `limit` requests
 * were sent; the gateway's RSS sampled.
 */
async function load(gateway: ProxyProcess, seconds: number, streams = 200, limit = Number.POSITIVE_INFINITY) {
  const url = `${gateway.url}/v1/messages`
  const payload = smallAnthropic("claude-sonnet-4-5")
  const end = Date.now() + seconds * 1000
  let done = 0
  let errors = 0
  let peak = 0
  let started = 0
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssOf(gateway.pid).rss)
  }, 100)
  const t0 = Date.now()
  await Promise.all(
    Array.from({ length: streams }, async () => {
      while (Date.now() < end && started++ < limit) {
        const reply = await post(url, payload, KEY).catch(() => undefined)
        if (reply?.status !== 200 || !complete(reply.body)) errors++
        else done++
      }
    }),
  )
  clearInterval(sampler)
  return { done, errors, rps: done / ((Date.now() - t0) / 1000), peak: Math.max(peak, rssOf(gateway.pid).rss) }
}

/**
 * Rounds of the small same-format request. While warming: measured after a short warm-up, when V8 is still
 * compiling the code a request runs (a proxy's JIT settles only after thousands of requests, the gateway's later
 * than the bare proxy's, which runs less code). Steady: measured after `after` rounds in all, the state of a
 * gateway left running; the goal is judged there (bench/history.md, "seventh look").
 */
const WARMING = { warmup: 300, rounds: 2000 }
const STEADY = { after: 10_000, rounds: 2000 }

async function latencyMetrics(
  replay: ReplayServer,
  gateway: ProxyProcess,
  ccr: ProxyProcess,
  pipe: ProxyProcess,
): Promise<Metric[]> {
  const small = smallAnthropic("claude-sonnet-4-5")
  const targets = [
    { url: `${replay.url}/v1/messages`, payload: small, headers: KEY },
    { url: `${gateway.url}/v1/messages`, payload: small, headers: KEY },
    { url: `${pipe.url}/v1/messages`, payload: small, headers: KEY },
  ]
  const [directWarming, viaWarming, pipedWarming] = await interleaved(targets, WARMING.rounds, WARMING.warmup)
  const warming = added(viaWarming!, directWarming!)
  const warmingFloor = added(pipedWarming!, directWarming!)
  const [direct, via, piped] = await interleaved(targets, STEADY.rounds, STEADY.after - WARMING.warmup - WARMING.rounds)
  const same = added(via!, direct!)
  const floor = added(piped!, direct!)
  const history = generateHistory({ messages: 200, seed: 7, fileLines: 70 })
  const anthropic = JSON.stringify(historyBody("anthropic", history, "claude-sonnet-4-5", "claude-sonnet-4-5"))
  const toChat = JSON.stringify(historyBody("anthropic", history, "claude-sonnet-4-5", "to-chat"))
  const chat = JSON.stringify(historyBody("openai-chat", history, "gpt-4.1", "gpt-4.1"))
  const [chatDirect, ours, theirs] = await interleaved(
    [
      { url: `${replay.urls.openai}/chat/completions`, payload: chat, headers: CHAT_KEY },
      { url: `${gateway.url}/v1/messages`, payload: toChat, headers: KEY },
      { url: `${ccr.url}/v1/messages`, payload: anthropic, headers: KEY },
    ],
    60,
    8,
  )
  const a = added(ours!, chatDirect!)
  const b = added(theirs!, chatDirect!)
  const size = `${Math.round(anthropic.length / 1024)} KB`
  const name = (q: string) => `added latency, Anthropic → OpenAI Chat, 200 messages (${size}), ${q}`
  return [
    {
      name: `added latency, same-format small Anthropic stream, p50, steady state (rounds ${formatFigure(STEADY.after)} to ${formatFigure(STEADY.after + STEADY.rounds)}; vs upstream direct)`,
      unit: "ms",
      ours: same.p50,
      peer: { name: "a bare Node.js pipe proxy (the floor of one more hop)", value: floor.p50 },
      better: "lower",
      target: "≤ bare + 0.15 ms",
      met: same.p50 <= floor.p50 + 0.15,
    },
    {
      name: "added latency, same-format small Anthropic stream, p99, steady state",
      unit: "ms",
      ours: same.p99,
      peer: { name: "a bare Node.js pipe proxy", value: floor.p99 },
      better: "lower",
    },
    {
      name: `added latency, same-format small Anthropic stream, p50, warming up (rounds ${formatFigure(WARMING.warmup)} to ${formatFigure(WARMING.warmup + WARMING.rounds)})`,
      unit: "ms",
      ours: warming.p50,
      peer: { name: "a bare Node.js pipe proxy", value: warmingFloor.p50 },
      better: "lower",
    },
    {
      name: "upstream direct, same-format small stream, p50, steady state (reference)",
      unit: "ms",
      ours: quantile(direct!, 0.5),
      better: "lower",
    },
    {
      name: name("p50"),
      unit: "ms",
      ours: a.p50,
      peer: { name: "claude-code-router 2.0.0", value: b.p50 },
      better: "lower",
      target: "≤ 0.5x claude-code-router",
      met: a.p50 <= 0.5 * b.p50,
    },
    {
      name: name("p99"),
      unit: "ms",
      ours: a.p99,
      peer: { name: "claude-code-router 2.0.0", value: b.p99 },
      better: "lower",
      target: "≤ 0.5x claude-code-router",
      met: a.p99 <= 0.5 * b.p99,
    },
    {
      name: "OpenAI Chat upstream direct, 200 messages, p50 (reference)",
      unit: "ms",
      ours: quantile(chatDirect!, 0.5),
      better: "lower",
    },
  ]
}

/** Turns of the throughput comparison, and seconds each proxy is loaded in a turn. */
const TURNS = 7
const TURN_SECONDS = 2

/**
 * Requests per second with 200 concurrent small streams, the gateway against the bare pipe proxy, after a warm-up
 * of each: seven turns, in each the two loaded back to back (which goes first alternates), and the turn whose ratio
 * is the median reported. The machine's load moves both proxies' figures by a third between minutes; within a turn
 * it falls on both, and one turn that caught a burst on one side does not decide the ratio as it would in a sum.
 */
async function throughputMetric(gateway: ProxyProcess, pipe: ProxyProcess): Promise<Metric> {
  await load(gateway, 1)
  await load(pipe, 1)
  const turns: { ours: number; bare: number }[] = []
  const errors = { ours: 0, bare: 0 }
  for (let turn = 0; turn < TURNS; turn++) {
    const order = turn % 2 === 0 ? [gateway, pipe] : [pipe, gateway]
    const rps = new Map<ProxyProcess, number>()
    for (const proxy of order) {
      const t0 = Date.now()
      const run = await load(proxy, TURN_SECONDS)
      rps.set(proxy, run.done / ((Date.now() - t0) / 1000))
      errors[proxy === gateway ? "ours" : "bare"] += run.errors
    }
    turns.push({ ours: rps.get(gateway)!, bare: rps.get(pipe)! })
  }
  const ranked = [...turns].sort((a, b) => a.ours / a.bare - b.ours / b.bare)
  const median = ranked[Math.floor(ranked.length / 2)]!
  const ratios = turns.map((t) => (t.ours / t.bare).toFixed(2)).join(" ")
  // A request that failed is counted, not timed (the bare proxy, which retries nothing, loses one to a keep-alive
  // race now and then); the gateway's own must be none.
  return {
    name: `requests per second, 200 concurrent small streams, same-format (the median of ${TURNS} turns of ${TURN_SECONDS} s each, ratios ${ratios}; errors: ${errors.ours} ours, ${errors.bare} bare)`,
    unit: "req/s",
    ours: median.ours,
    peer: { name: "a bare Node.js pipe proxy, the same turn", value: median.bare },
    better: "higher",
    target: "≥ 0.8x",
    met: median.ours >= 0.8 * median.bare && errors.ours === 0,
  }
}

async function cacheMetrics(
  gatewayUrl: string,
  clock: { now: number; base: number },
  simulated: ReplayServer,
): Promise<Metric[]> {
  const { share, billed } = await cacheReplay(gatewayUrl, "bench-cache", clock, simulated)
  const fitted = await cacheReplay(gatewayUrl, "bench-cache-fit", clock, simulated)
  return [
    {
      name: "cache reads, share of input tokens, 200-turn replay via translate + cache: optimize",
      unit: "%",
      ours: share,
      better: "higher",
      target: "≥ 90%",
      met: share >= 90,
    },
    {
      name: "cache replay: input tokens billed (uncached + read + written)",
      unit: "tokens",
      ours: billed,
      better: "lower",
    },
    {
      name: "cache reads, share of input tokens, same replay with the route's fit: true",
      unit: "%",
      ours: fitted.share,
      better: "higher",
    },
  ]
}

const gateway: Benchmark = {
  name: "gateway",
  async run(): Promise<Metric[]> {
    const script = { version: 1 as const, turns: [OK] }
    const replay = await startReplayServer({ script, loop: true, keepRequests: 16 })
    const clock = { now: 0, base: 0 }
    const simulated = await startReplayServer({
      script,
      loop: true,
      keepRequests: 16,
      cache: "simulate",
      now: () => clock.now,
    })
    const proxies: ProxyProcess[] = []
    try {
      const ours = await startPromptline({
        upstreams: {
          anthropic: { provider: "anthropic", baseUrl: replay.url },
          chat: { provider: "openai", format: "openai-chat", baseUrl: replay.urls.openai },
          cached: { provider: "anthropic", baseUrl: simulated.url },
        },
        routes: [
          { match: "to-chat", upstream: "chat", model: "gpt-4.1", mode: "translate" },
          {
            match: "bench-cache",
            upstream: "cached",
            model: "claude-sonnet-4-5",
            mode: "translate",
            cache: "optimize",
          },
          {
            match: "bench-cache-fit",
            upstream: "cached",
            model: "claude-sonnet-4-5",
            mode: "translate",
            cache: "optimize",
            fit: true,
          },
          { match: "*", upstream: "anthropic" },
        ],
      })
      proxies.push(ours)
      const port = 20000 + (process.pid % 20000)
      const ccr = await startCcr(port, `${replay.urls.openai}/chat/completions`, "gpt-4.1")
      proxies.push(ccr)
      const pipe = await startPipeProxy(port + 1, replay.url)
      proxies.push(pipe)
      const metrics = await latencyMetrics(replay, ours, ccr, pipe)
      await ccr.stop()
      metrics.push(await throughputMetric(ours, pipe))
      await pipe.stop()
      metrics.push(...(await cacheMetrics(ours.url, clock, simulated)))
      await ours.stop()
      // A fresh gateway for the load: its memory before is that of a process that has served small requests only.
      // With the inspector on, to ask for a full garbage collection and read the live heap.
      const fresh = await startPromptline(
        {
          upstreams: { anthropic: { provider: "anthropic", baseUrl: replay.url } },
          routes: [{ match: "*", upstream: "anthropic" }],
        },
        ["--inspect=127.0.0.1:0"],
      )
      proxies.push(fresh)
      if (!fresh.inspector) throw new Error("the gateway's inspector did not start")
      const inspector = fresh.inspector
      await load(fresh, 2, 20)
      await new Promise((done) => setTimeout(done, 1000))
      const before = rssOf(fresh.pid).rss
      const heapBefore = await liveHeapOf(inspector)
      const short = await load(fresh, 5)
      const heapShort = await liveHeapOf(inspector)
      metrics.push(
        {
          name: "requests per second, 200 concurrent small streams, 5 s",
          unit: "req/s",
          ours: short.rps,
          better: "higher",
        },
        { name: "gateway RSS with 200 concurrent streams (peak)", unit: "MB", ours: short.peak, better: "lower" },
        {
          // The 200 clients' keep-alive connections are still open here; the back-to-baseline verdict is the load
          // run's, after they closed.
          name: "live heap after a full GC, right after the 5 s run, 200 connections still open (before it)",
          unit: "MB",
          ours: heapShort,
          peer: { name: "the same gateway before the run", value: heapBefore },
          better: "lower",
        },
        {
          name: "errors in the 5 s run",
          unit: "",
          ours: short.errors,
          better: "lower",
          target: "0",
          met: short.errors === 0,
        },
      )
      if (process.env.PROMPTLINE_BENCH_LOAD === "1") {
        const idle = () => new Promise((done) => setTimeout(done, 10_000))
        const long = await load(fresh, 60)
        await idle()
        const after = rssOf(fresh.pid).rss
        const heapAfter = await liveHeapOf(inspector)
        const afterGc = rssOf(fresh.pid).rss
        // 10,000 more requests: a leak grows the live heap and RSS again; a heap that has found its size does not.
        const more = await load(fresh, 600, 200, 10_000)
        await idle()
        const again = rssOf(fresh.pid).rss
        const heapAgain = await liveHeapOf(inspector)
        metrics.push(
          {
            name: `load: 200 concurrent streams for 60 s (${long.done.toLocaleString("en-US")} requests), errors`,
            unit: "",
            ours: long.errors,
            better: "lower",
            target: "0",
            met: long.errors === 0 && long.done >= 10_000,
          },
          { name: "load: requests per second", unit: "req/s", ours: long.rps, better: "higher" },
          { name: "load: gateway RSS before", unit: "MB", ours: before, better: "lower" },
          { name: "load: gateway RSS peak", unit: "MB", ours: long.peak, better: "lower" },
          {
            name: "load: live heap after a full GC, after the 60 s run (before it)",
            unit: "MB",
            ours: heapAfter,
            peer: { name: "the same gateway before the load", value: heapBefore },
            better: "lower",
            target: "≤ 1.1x before (back to baseline)",
            met: heapAfter <= 1.1 * heapBefore,
          },
          {
            name: `load: live heap after a full GC, after 10,000 more requests (${more.errors} errors)`,
            unit: "MB",
            ours: heapAgain,
            peer: { name: "the same gateway before the load", value: heapBefore },
            better: "lower",
            target: "≤ 1.1x before (no leak)",
            met: heapAgain <= 1.1 * heapBefore && more.errors === 0,
          },
          // RSS: V8 keeps the young generation it grew to under load, so RSS stays above its start without a leak.
          { name: "load: gateway RSS after (10 s idle)", unit: "MB", ours: after, better: "lower" },
          { name: "load: gateway RSS after that full GC", unit: "MB", ours: afterGc, better: "lower" },
          {
            name: `load: gateway RSS after 10,000 more requests (${more.errors} errors), 10 s idle`,
            unit: "MB",
            ours: again,
            better: "lower",
            target: "≤ 1.05x the RSS after the 60 s run (no growth)",
            met: again <= 1.05 * after && more.errors === 0,
          },
        )
      }
      return metrics
    } finally {
      for (const p of proxies) await p.stop()
      await replay.close()
      await simulated.close()
    }
  },
}

export default gateway
