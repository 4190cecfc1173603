// bench/tool-search: tool search over 456 tools of 28 real MCP servers (test/fixtures/tool-search, snapshots of
// their tools/list). Measures (1) the tool-definition tokens of one request with tool search against loading
// every tool (target ≤ 15%), (2) top-1, top-5 and MRR on the frozen task phrasings (tasks.json), per half and per
// class, next to minisearch with its default settings in the same run (targets on the held-out half: ≥ 85% top-5,
// ≥ 60% top-1), hybrid mode with a deterministic trigram stand-in for an embedding model, and the older 167 phrasings of queries.json over the whole fixture, (3) the CPU time of one search
// with 500 tools (target under 1 ms).
// The tune half alone, with its misses, is bench/tool-search-tune.ts (the held-out half is only ever scored here).
import MiniSearch from "minisearch"
import type { McpServerInfo, PromptContext } from "../src/context/prompt-context.js"
import { overheadOf, TokenCounter } from "../src/history/tokens.js"
import { build } from "../src/prompt/builder.js"
import { DeferredTools } from "../src/tools/search/deferred-tools.js"
import type { EnabledTool } from "../src/tools/spec.js"
import {
  loadToolSearchQueries,
  loadToolSearchServers,
  loadToolSearchTasks,
  type TaskPhrasing,
  toolSearchContext,
} from "../test/fixtures/tool-search/load.js"
import { trigramEmbedder } from "../test/fixtures/tool-search/trigram-embedder.js"
import type { Benchmark, Metric } from "./harness.js"
import { inGroup, rankOf, ranksOf, score, scoreTable } from "./tool-search-eval.js"

function contextWith(servers: McpServerInfo[], mode: "auto" | "never"): PromptContext {
  return toolSearchContext({ mcpServers: servers, tools: { search: { mode } } })
}

const label = (t: EnabledTool): string => `${t.mcp?.server}/${t.mcp?.tool}`

/** minisearch with its default settings over names and descriptions: the peer. */
function plainMiniSearch(tools: readonly EnabledTool[]): (query: string) => string[] {
  const plain = new MiniSearch<{ id: number; name: string; description: string }>({ fields: ["name", "description"] })
  plain.addAll(tools.map((t, id) => ({ id, name: t.name, description: t.description })))
  return (q) => plain.search(q).map((r) => label(tools[r.id as number]!))
}

/** The servers of the fixture, then copies under other names until there are at least `count` tools. */
function serversWithTools(servers: McpServerInfo[], count: number): McpServerInfo[] {
  const out = [...servers]
  let total = servers.reduce((n, s) => n + s.tools.length, 0)
  for (let i = 0; total < count; i++) {
    const s = servers[i % servers.length]!
    out.push({ ...s, name: `${s.name}-copy` })
    total += s.tools.length
  }
  return out
}

const toolSearch: Benchmark = {
  name: "tool-search",
  async run(): Promise<Metric[]> {
    const servers = loadToolSearchServers()
    const tasks = loadToolSearchTasks()
    const queries = loadToolSearchQueries()
    const withSearch = build(contextWith(servers, "auto"))
    const allLoaded = build(contextWith(servers, "never"))
    const counter = await TokenCounter.create()
    const overhead = overheadOf(withSearch.wireFormat)
    const family = withSearch.model.tokenizer
    const tokensWith = counter.countTools(withSearch.tools, family, overhead)
    const tokensAll = counter.countTools(allLoaded.tools, family, overhead)

    const tools = withSearch.deferredTools
    const deferred = new DeferredTools(tools)
    const ours = (q: string) => deferred.search(q, 10).map((m) => label(m.tool))
    const peer = plainMiniSearch(tools)
    // Hybrid mode with the trigram stand-in (no model here): shows the fusion at work, not what a real embedding
    // model would add.
    const hybrid = new DeferredTools(tools, { embed: trigramEmbedder().embed })
    const hybridLabels = new Map<string, string[]>()
    for (const t of tasks)
      hybridLabels.set(
        t.query,
        (await hybrid.searchHybrid(t.query, 10)).map((m) => label(m.tool)),
      )
    const rankings = new Map([
      ["promptline", ranksOf(tasks, ours)],
      ["minisearch", ranksOf(tasks, peer)],
      ["hybrid, trigram stand-in", ranksOf(tasks, (q) => hybridLabels.get(q) ?? [])],
    ])
    process.stdout.write(`${scoreTable(tasks, rankings)}\n`)
    const half = (split: TaskPhrasing["split"], which: "top1" | "top5" | "mrr") => {
      const group = inGroup(tasks, { split, class: "all" })
      return [
        score(group, rankings.get("promptline")!)[which],
        score(group, rankings.get("minisearch")!)[which],
      ] as const
    }
    const taskMetric = (split: TaskPhrasing["split"], which: "top1" | "top5" | "mrr", target?: number): Metric => {
      const [o, p] = half(split, which)
      const n = inGroup(tasks, { split, class: "all" }).length
      const what = which === "top1" ? "right tool first" : which === "top5" ? "right tool in the top 5" : "MRR"
      return {
        name: `${what}, ${split} half (${n} task phrasings, ${tools.length} tools)`,
        unit: which === "mrr" ? "" : "%",
        ours: which === "mrr" ? o : o * 100,
        peer: { name: "minisearch, default settings", value: which === "mrr" ? p : p * 100 },
        better: "higher",
        ...(target !== undefined ? { target: `≥ ${target}%`, met: o * 100 >= target } : {}),
      }
    }

    const oldTop5 = (search: (q: string) => string[]) =>
      queries.filter((q) => rankOf(q, search(q.query).slice(0, 5)) > 0).length / queries.length

    // CPU time of the searches with 500 tools (this machine is shared: wall time would count other processes' turns).
    const big = build(contextWith(serversWithTools(servers, 500), "auto")).deferredTools.slice(0, 500)
    const index500 = new DeferredTools(big)
    const words = tasks.map((t) => t.query)
    for (const q of words) index500.search(q, 5)
    const rounds = 5
    const cpu0 = process.cpuUsage()
    for (let r = 0; r < rounds; r++) for (const q of words) index500.search(q, 5)
    const cpu = process.cpuUsage(cpu0)
    const perQuery = (cpu.user + cpu.system) / (rounds * words.length)

    return [
      {
        name: `tool-definition tokens per request, ${tools.length} of ${allLoaded.tools.length} tools deferred (${servers.length} servers)`,
        unit: "tokens",
        ours: tokensWith,
        peer: { name: "every tool loaded", value: tokensAll },
        better: "lower",
        target: "≤ 15% of loading them all",
        met: tokensWith <= 0.15 * tokensAll,
      },
      taskMetric("held-out", "top5", 85),
      taskMetric("held-out", "top1", 60),
      taskMetric("held-out", "mrr"),
      taskMetric("tune", "top5"),
      taskMetric("tune", "top1"),
      taskMetric("tune", "mrr"),
      {
        name: `right tool in the top 5, queries.json (${queries.length} phrasings of the first 11 servers, ${tools.length} tools)`,
        unit: "%",
        ours: oldTop5(ours) * 100,
        peer: { name: "minisearch, default settings", value: oldTop5(peer) * 100 },
        better: "higher",
      },
      {
        name: `one search (top 5), CPU time per query, ${big.length} tools`,
        unit: "µs",
        ours: perQuery,
        better: "lower",
        target: "< 1 ms",
        met: perQuery < 1000,
      },
    ]
  },
}

export default toolSearch
