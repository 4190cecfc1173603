// bench/cache-explain: bench/fit's replay cut to 200 turns (the same generated history, seed 7), with
// promptline's default strategy (auto truncation; breakpoints on the system prompt, the end of the first
// exchange and the last two user messages). Each request is encoded as an Anthropic body, as a client would
// send it, and recorded in a trace store (the gateway's call), which explains its cache use. The predicted
// cached share of the trace is compared with bench/fit's cache simulation of the same requests (TTL ignored
// there, so requests here are 10 s apart). Also reported: explain time per request and trace bytes.

import { mkdtemp, readdir, rm, stat } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { TraceStore } from "../src/cache/trace-store.js"
import { ContextManager } from "../src/history/context-manager.js"
import type { Message } from "../src/history/message.js"
import { TokenCounter } from "../src/history/tokens.js"
import { resolveModel } from "../src/models/resolve.js"
import { encodeRequest } from "../src/providers/encode.js"
import { generateHistory } from "../test/fixtures/history/generate.js"
import { lastUsers, SYSTEM, simulate } from "./fit.bench.js"
import type { Benchmark, Metric } from "./harness.js"

const TURNS = 200

async function folderBytes(dir: string): Promise<number> {
  let n = 0
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name)
    n += e.isDirectory() ? await folderBytes(p) : (await stat(p)).size
  }
  return n
}

/** The Anthropic body of one request, with a breakpoint at the end of the first exchange as the simulation has. */
function body(messages: Message[], claude: ReturnType<typeof resolveModel>["model"]): Record<string, unknown> {
  const { body } = encodeRequest("anthropic", {
    prompt: { text: SYSTEM, tools: [] },
    messages,
    model: claude,
    options: { cache: { breakpoints: { system: true, userMessages: 2 } } },
  })
  const copy = JSON.parse(JSON.stringify(body)) as { messages: { content: Record<string, unknown>[] }[] }
  const first = copy.messages[1]?.content
  const last = first
    ? [...first].reverse().find((b) => b.type !== "thinking" && b.type !== "redacted_thinking")
    : undefined
  if (last && !last.cache_control) last.cache_control = { type: "ephemeral" }
  return copy as unknown as Record<string, unknown>
}

const cacheExplain: Benchmark = {
  name: "cache-explain",
  async run(): Promise<Metric[]> {
    const history = generateHistory({ messages: 2 * TURNS, fileLines: 170, seed: 7 })
    const counter = await TokenCounter.create()
    const claude = resolveModel("claude-sonnet-4-5").model
    const manager = new ContextManager(counter)
    const sent: Message[][] = []
    const simulated = simulate(history, counter, claude, (prefix, now) => {
      const messages = manager.fit(prefix, { model: claude, now, system: SYSTEM }).messages
      sent.push(messages)
      return { messages, breakpoints: [-1, Math.min(1, messages.length - 1), ...lastUsers(messages, 2)] }
    })
    const dir = await mkdtemp(join(tmpdir(), "promptline-bench-traces-"))
    try {
      const store = new TraceStore(dir, { counter })
      let read = 0
      let total = 0
      let misses = 0
      const causes = new Map<string, number>()
      const times: number[] = []
      for (const [k, messages] of sent.entries()) {
        const at = 1_800_000_000_000 + k * 10_000
        const t0 = process.hrtime.bigint()
        const { verdict } = await store.record({
          at,
          clientApi: "anthropic",
          upstream: { format: "anthropic", provider: "anthropic" },
          model: claude.id,
          sent: { body: body(messages, claude) },
        })
        times.push(Number(process.hrtime.bigint() - t0) / 1e6)
        read += verdict.tokens.predictedRead
        total += verdict.tokens.total
        if (verdict.verdict === "miss") {
          misses++
          const cause = verdict.cause!
          const name = cause.kind === "message-changed" ? `${cause.kind} (${cause.change})` : cause.kind
          causes.set(name, (causes.get(name) ?? 0) + 1)
        }
      }
      const predicted = (100 * read) / total
      const simulation = (100 * simulated.read) / simulated.input
      const bytes = await folderBytes(dir)
      const bodies = sent.reduce((n, m) => n + JSON.stringify(body(m, claude)).length, 0)
      times.sort((a, b) => a - b)
      return [
        {
          name: "predicted cached share of the trace (200 turns)",
          unit: "%",
          ours: predicted,
          peer: { name: "bench/fit cache simulation", value: simulation },
          better: "higher",
          target: "within 1 percentage point of the simulation",
          met: Math.abs(predicted - simulation) <= 1,
        },
        {
          name: "difference from the simulation",
          unit: "pp",
          ours: Math.abs(predicted - simulation),
          better: "lower",
          target: "≤ 1 pp",
          met: Math.abs(predicted - simulation) <= 1,
        },
        {
          name: `requests explained as misses: ${[...causes].map(([c, n]) => `${c} ×${n}`).join(", ") || "none"}`,
          unit: "requests",
          ours: misses,
          better: "lower",
        },
        {
          name: "record + explain per request, median",
          unit: "ms",
          ours: times[Math.floor(times.length / 2)]!,
          better: "lower",
        },
        {
          name: "trace folder size",
          unit: "MB",
          ours: bytes / 1e6,
          peer: { name: "every body stored whole", value: bodies / 1e6 },
          better: "lower",
        },
      ]
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  },
}

export default cacheExplain
