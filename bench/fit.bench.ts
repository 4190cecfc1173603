// bench/fit: a generated 2,000-message agent history (file reads with repeats, command outputs, edits
// carrying final file content, parallel tool calls) replayed turn by turn.
// 1. Per-turn fit latency against LangChain's trimMessages, same exact o200k counter (cached per
//    message the same way) and the same budget, in the same run.
// 2. An Anthropic prompt-cache simulation of the same replay (writes 1.25x, reads 0.1x, TTL ignored)
//    for our default, a Cline-style strategy and trim-oldest-every-turn. Breakpoints are modelled here
//    (not with src/providers/cache.ts): a breakpoint caches the prefix up to the end of its message; a
//    request reads the longest cached prefix ending at a breakpoint or up to 20 messages before one.

import { createHash } from "node:crypto"
import { clearMergeCache } from "gpt-tokenizer/encoding/o200k_base"
import { budgetFor } from "../src/history/budget.js"
import { ChangeLog } from "../src/history/change-log.js"
import { ContextManager } from "../src/history/context-manager.js"
import type { Message } from "../src/history/message.js"
import { blockText, overheadOf, TokenCounter } from "../src/history/tokens.js"
import { resolveModel } from "../src/models/resolve.js"
import type { ModelInfo } from "../src/models/types.js"
import { generateHistory } from "../test/fixtures/history/generate.js"
import { type Benchmark, type Metric, median, quantile } from "./harness.js"

export const SYSTEM = `You are a coding agent.\n${"Follow the rules. Use the tools. Keep edits small. ".repeat(900)}`

/** What the bench uses of LangChain's messages module (a bench peer: bench/package.json, installed by npm run bench). */
interface BaseMessage {
  content: unknown
}
type ToolCall = { id: string; name: string; args: Record<string, unknown>; type: "tool_call" }
interface LangChainMessages {
  AIMessage: new (fields: { content: string; tool_calls: ToolCall[]; id: string }) => BaseMessage
  ToolMessage: new (fields: { content: string; tool_call_id: string }) => BaseMessage
  HumanMessage: new (fields: { content: string; id: string }) => BaseMessage
  trimMessages(messages: BaseMessage[], options: Record<string, unknown>): Promise<BaseMessage[]>
}
// Typed here, not from the package: the root typecheck runs without the bench peers installed.
const LANGCHAIN_MESSAGES: string = "@langchain/core/messages"
const { AIMessage, HumanMessage, ToolMessage, trimMessages } = (await import(LANGCHAIN_MESSAGES)) as LangChainMessages

/** Converts our history to LangChain messages (once, outside the timing). */
function toLangChain(history: readonly Message[]): BaseMessage[] {
  const out: BaseMessage[] = []
  for (const m of history) {
    if (m.role === "assistant") {
      const text = m.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n")
      const calls = m.content.flatMap((b) =>
        b.type === "tool_use"
          ? [{ id: b.id, name: b.name, args: b.input as Record<string, unknown>, type: "tool_call" as const }]
          : [],
      )
      out.push(new AIMessage({ content: text, tool_calls: calls, id: m.id }))
    } else {
      for (const b of m.content) {
        if (b.type === "tool_result") out.push(new ToolMessage({ content: blockText(b), tool_call_id: b.toolUseId }))
      }
      const text = m.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n")
      if (text || !m.content.some((b) => b.type === "tool_result"))
        out.push(new HumanMessage({ content: text, id: m.id }))
    }
  }
  return out
}

/** Per-turn latency of our fit and of trimMessages over the same turns. */
async function latency(
  history: Message[],
  counter: TokenCounter,
  model: ModelInfo,
): Promise<{ ours: number[]; oursCpu: number[]; peer: number[] }> {
  const manager = new ContextManager(counter)
  const budget = budgetFor(model).effective
  const overhead = overheadOf("openai-chat")
  const system = counter.countText(SYSTEM)
  const lcCache = new WeakMap<BaseMessage, number>()
  const lcCount = (msgs: BaseMessage[]): number => {
    let n = overhead.request
    for (const m of msgs) {
      let c = lcCache.get(m)
      if (c === undefined) {
        const calls = (m as { tool_calls?: ToolCall[] }).tool_calls ?? []
        c = overhead.message + counter.countText(typeof m.content === "string" ? m.content : JSON.stringify(m.content))
        for (const t of calls) c += overhead.toolBlock + counter.countText(`${t.name} ${JSON.stringify(t.args)}`)
        lcCache.set(m, c)
      }
      n += c
    }
    return n
  }
  const lc = toLangChain(history)
  // Position in the LangChain list that matches each prefix of ours.
  const lcEnd: number[] = []
  let j = 0
  history.forEach((m, i) => {
    j +=
      m.role === "assistant"
        ? 1
        : Math.max(
            1,
            m.content.filter((b) => b.type === "tool_result").length +
              (m.content.some((b) => b.type === "text") ? 1 : 0),
          )
    lcEnd[i] = j
  })
  const ours: number[] = []
  const oursCpu: number[] = []
  const peer: number[] = []
  for (let k = 1; k <= history.length; k += 2) {
    const prefix = history.slice(0, k)
    const lcPrefix = lc.slice(0, lcEnd[k - 1])
    // Wall clock, and the process's CPU time around it (read outside the wall-clock span): on a shared
    // machine a turn's wall time also holds the time the process waited for a core.
    const c0 = process.cpuUsage()
    let t0 = process.hrtime.bigint()
    manager.fit(prefix, { model, now: prefix[k - 1]!.ts, system: SYSTEM })
    ours.push(Number(process.hrtime.bigint() - t0) / 1000)
    const cpu = process.cpuUsage(c0)
    oursCpu.push(cpu.user + cpu.system)
    // LangChain runs on every 4th turn (it is slow); medians compare the same turns.
    if ((k - 1) % 8 === 0) {
      t0 = process.hrtime.bigint()
      await trimMessages(lcPrefix, {
        maxTokens: budget - system,
        tokenCounter: lcCount,
        strategy: "last",
        startOn: "human",
        includeSystem: false,
        allowPartial: false,
      })
      peer.push(Number(process.hrtime.bigint() - t0) / 1000)
    }
  }
  return { ours, oursCpu, peer }
}

/** Replays of the same turns for `fastestPerTurn`. */
const REPLAYS = 4

/**
 * Each turn's fastest wall time over REPLAYS replays of the whole history, every replay from the same start
 * (a new ContextManager, a new TokenCounter, gpt-tokenizer's merge cache emptied), so each does the same work.
 * On a shared machine a single replay's slowest turns are mostly the machine's (a preempted core, a GC or
 * compiler thread taking the other core); the fastest of a few replays is the turn's own cost.
 */
async function fastestPerTurn(history: Message[], model: ModelInfo): Promise<number[]> {
  const fastest: number[] = []
  for (let replay = 0; replay < REPLAYS; replay++) {
    clearMergeCache()
    const manager = new ContextManager(await TokenCounter.create())
    for (let k = 1, turn = 0; k <= history.length; k += 2, turn++) {
      const prefix = history.slice(0, k)
      const t0 = process.hrtime.bigint()
      manager.fit(prefix, { model, now: prefix[k - 1]!.ts, system: SYSTEM })
      const us = Number(process.hrtime.bigint() - t0) / 1000
      fastest[turn] = Math.min(fastest[turn] ?? us, us)
    }
  }
  return fastest
}

/** What one simulated request costs, in input-token units. */
export interface CacheTotals {
  input: number
  read: number
  write: number
  uncached: number
}

/** Simulates Anthropic prompt caching over a replay; `plan` gives each turn's messages and breakpoints. */
export function simulate(
  history: Message[],
  counter: TokenCounter,
  model: ModelInfo,
  plan: (prefix: Message[], now: number) => { messages: Message[]; breakpoints: number[] },
): CacheTotals {
  const family = model.tokenizer
  const overhead = overheadOf("anthropic")
  const system = counter.countText(SYSTEM, family)
  const minTokens = model.cache?.minTokens ?? 1024
  const cache = new Set<string>()
  const fingerprints = new WeakMap<Message, string>()
  const fp = (m: Message) => {
    let f = fingerprints.get(m)
    if (!f) {
      f = createHash("sha1").update(JSON.stringify(m)).digest("base64")
      fingerprints.set(m, f)
    }
    return f
  }
  const totals: CacheTotals = { input: 0, read: 0, write: 0, uncached: 0 }
  for (let k = 1; k <= history.length; k += 2) {
    const { messages, breakpoints } = plan(history.slice(0, k), history[k - 1]!.ts)
    // Prefix keys and token sums at each message end; position -1 is the system prompt.
    const keys: string[] = []
    const sums: number[] = []
    let key = "system"
    let sum = system
    for (const m of messages) {
      key = createHash("sha1").update(key).update(fp(m)).digest("base64")
      sum += counter.countMessage(m, family, overhead)
      keys.push(key)
      sums.push(sum)
    }
    const at = (p: number) => (p < 0 ? { key: "system", tokens: system } : { key: keys[p]!, tokens: sums[p]! })
    const total = sum
    let read = 0
    for (const b of breakpoints) {
      for (let p = b; p >= Math.max(-1, b - 20); p--) {
        const x = at(p)
        if (cache.has(x.key)) {
          read = Math.max(read, x.tokens)
          break
        }
      }
    }
    const last = Math.max(...breakpoints)
    const cachedUpTo = at(last).tokens
    const write = Math.max(0, cachedUpTo - read)
    for (const b of breakpoints) {
      const x = at(b)
      if (x.tokens >= minTokens) cache.add(x.key)
    }
    totals.input += total
    totals.read += read
    totals.write += write
    totals.uncached += total - read - write
  }
  return totals
}

const cost = (t: CacheTotals) => t.uncached + 1.25 * t.write + 0.1 * t.read

/** Indexes of the last `n` user messages. */
export function lastUsers(messages: readonly Message[], n: number): number[] {
  const out: number[] = []
  for (let i = messages.length - 1; i >= 0 && out.length < n; i--) if (messages[i]!.role === "user") out.push(i)
  return out
}

const fit: Benchmark = {
  name: "fit",
  async run(): Promise<Metric[]> {
    const history = generateHistory({ messages: 2000, fileLines: 170, seed: 7 })
    const counter = await TokenCounter.create()
    const exact = resolveModel("o3").model
    const claude = resolveModel("claude-sonnet-4-5").model
    const tokens = counter.countMessages(history, "o200k", overheadOf("openai-chat"))

    const { ours, oursCpu, peer } = await latency(history, counter, exact)
    const fastest = await fastestPerTurn(history, exact)
    const sampled = ours.filter((_, i) => i % 4 === 0)

    // Our default: auto truncation; breakpoints on the system prompt, the end of the first exchange and
    // the last two user messages.
    const manager = new ContextManager(counter)
    const ourTotals = simulate(history, counter, claude, (prefix, now) => {
      const messages = manager.fit(prefix, { model: claude, now, system: SYSTEM }).messages
      return { messages, breakpoints: [-1, Math.min(1, messages.length - 1), ...lastUsers(messages, 2)] }
    })
    // Cline-style: half truncation (with Cline's dedup), breakpoints on system and the last two user messages.
    const cline = new ContextManager(counter, { strategy: "half" })
    const clineTotals = simulate(history, counter, claude, (prefix, now) => {
      const messages = cline.fit(prefix, { model: claude, now, system: SYSTEM }).messages
      return { messages, breakpoints: [-1, ...lastUsers(messages, 2)] }
    })
    // Trim-oldest-every-turn: drop the oldest messages after the first exchange until it fits, every turn.
    const budget = budgetFor(claude).effective
    const trimTotals = simulate(history, counter, claude, (prefix) => {
      const overhead = overheadOf("anthropic")
      let total = counter.countText(SYSTEM, "claude") + counter.countMessages(prefix, "claude", overhead)
      let start = 2
      while (total > budget && start < prefix.length - 1) {
        total -=
          counter.countMessage(prefix[start]!, "claude", overhead) +
          counter.countMessage(prefix[start + 1]!, "claude", overhead)
        start += 2
      }
      const messages = new ChangeLog(
        start > 2 ? [{ kind: "truncation", ts: 0, from: prefix[2]!.id, to: prefix[start - 1]!.id }] : [],
      ).view(prefix)
      return { messages, breakpoints: [-1, ...lastUsers(messages, 2)] }
    })

    const turns = Math.ceil(history.length / 2)
    const share = (t: CacheTotals) => (100 * t.read) / t.input
    const relative = (t: CacheTotals) => cost(t) / t.input
    const ourMedian = median(sampled)
    const ratio = median(peer) / ourMedian
    return [
      { name: "history size (2,000 messages, o200k)", unit: "tokens", ours: tokens, better: "higher" },
      {
        name: "fit latency, every turn: median",
        unit: "µs",
        ours: median(ours),
        better: "lower",
        target: "< 1 ms",
        met: median(ours) < 1000,
      },
      {
        name: "fit latency, every turn: p99 (one replay, the machine's noise included)",
        unit: "µs",
        ours: quantile(ours, 0.99),
        better: "lower",
      },
      {
        name: `fit latency, every turn: p99 of each turn's fastest of ${REPLAYS} replays`,
        unit: "µs",
        ours: quantile(fastest, 0.99),
        better: "lower",
        target: "≤ 1 ms",
        met: quantile(fastest, 0.99) <= 1000,
      },
      {
        // The process's CPU time per turn (all its threads, GC included): what the turn costs, without
        // the waits for a core that a shared machine adds to the wall clock.
        name: "fit CPU time, every turn: p99",
        unit: "µs",
        ours: quantile(oursCpu, 0.99),
        better: "lower",
      },
      {
        name: "fit latency, turns both ran: median",
        unit: "µs",
        ours: ourMedian,
        peer: { name: "LangChain trimMessages (same turns)", value: median(peer) },
        better: "lower",
        target: "≥ 100x faster and < 1 ms",
        met: ratio >= 100 && ourMedian < 1000,
      },
      {
        name: "fit latency, turns both ran: p99",
        unit: "µs",
        ours: quantile(sampled, 0.99),
        peer: { name: "LangChain trimMessages (same turns)", value: quantile(peer, 0.99) },
        better: "lower",
      },
      {
        name: "cache reads, share of input tokens (default)",
        unit: "%",
        ours: share(ourTotals),
        peer: { name: "Cline-style", value: share(clineTotals) },
        better: "higher",
        target: "≥ 90%",
        met: share(ourTotals) >= 90,
      },
      {
        name: "replay input cost (million base-input-token units)",
        unit: "M",
        ours: cost(ourTotals) / 1e6,
        peer: { name: "Cline-style", value: cost(clineTotals) / 1e6 },
        better: "lower",
        target: "≤ 0.8x the Cline-style cost",
        met: cost(ourTotals) <= 0.8 * cost(clineTotals),
      },
      {
        name: "input cost relative to no caching (default)",
        unit: "x",
        ours: relative(ourTotals),
        peer: { name: "Cline-style", value: relative(clineTotals) },
        better: "lower",
      },
      {
        // Context kept: the cost gain partly comes from sending less after a cut; this shows how much.
        name: "prompt tokens sent per turn, average",
        unit: "tokens",
        ours: Math.round(ourTotals.input / turns),
        peer: { name: "Cline-style", value: Math.round(clineTotals.input / turns) },
        better: "higher",
      },
      {
        name: "cache reads, share of input tokens (default)",
        unit: "%",
        ours: share(ourTotals),
        peer: { name: "trim-oldest-every-turn", value: share(trimTotals) },
        better: "higher",
      },
      {
        name: "input cost relative to no caching (default)",
        unit: "x",
        ours: relative(ourTotals),
        peer: { name: "trim-oldest-every-turn", value: relative(trimTotals) },
        better: "lower",
      },
    ]
  },
}

export default fit
