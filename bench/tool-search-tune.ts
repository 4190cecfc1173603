// The tuning loop of tool search: scores the TUNE half of the frozen task phrasings (tasks.json) per class, and with
// --misses lists that half's phrasings whose tool is not first. The held-out half is never loaded here; its figures
// come only from the benchmark (`node --import tsx bench/run.ts tool-search`), as aggregates.
//
//   node --import tsx bench/tool-search-tune.ts [--misses]
import { build } from "../src/prompt/builder.js"
import { DeferredTools } from "../src/tools/search/deferred-tools.js"
import type { EnabledTool } from "../src/tools/spec.js"
import { loadToolSearchServers, loadToolSearchTasks, toolSearchContext } from "../test/fixtures/tool-search/load.js"
import { ranksOf, score } from "./tool-search-eval.js"

const servers = loadToolSearchServers()
const tune = loadToolSearchTasks().filter((t) => t.split === "tune")
const built = build(toolSearchContext({ mcpServers: servers, tools: { search: { mode: "auto" } } }))
const label = (t: EnabledTool): string => `${t.mcp?.server}/${t.mcp?.tool}`
const deferred = new DeferredTools(built.deferredTools)
const search = (q: string) => deferred.search(q, 10).map((m) => label(m.tool))
const ranks = ranksOf(tune, search)
const pct = (x: number) => `${(x * 100).toFixed(1)}%`
for (const c of ["all", "direct", "indirect", "far"] as const) {
  const group = tune.filter((t) => c === "all" || t.class === c)
  const s = score(group, ranks)
  process.stdout.write(
    `tune ${c.padEnd(9)} ${String(s.count).padStart(4)}  top-1 ${pct(s.top1)}  top-5 ${pct(s.top5)}  MRR ${s.mrr.toFixed(3)}\n`,
  )
}
if (process.argv.includes("--misses")) {
  for (const t of tune) {
    const rank = ranks.get(t)!
    if (rank === 1) continue
    const got = search(t.query).slice(0, 3).join(", ")
    process.stdout.write(`  ${rank === 0 ? "miss" : `#${rank}`} [${t.class}] "${t.query}" → ${t.tool}; got ${got}\n`)
  }
}
