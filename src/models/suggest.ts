/**
 * "Did you mean": the catalog ids closest to an unknown model id, and the config snippet that adds it.
 */
import type * as Levenshtein from "fastest-levenshtein"
import { lazyModule } from "../lazy-module.js"
import { MODEL_CATALOG } from "./catalog.js"
import type { ModelInfo } from "./types.js"

/** fastest-levenshtein (CommonJS), required on the first suggestion. */
const levenshtein = lazyModule<typeof Levenshtein>("fastest-levenshtein")

/** The bare model name of an id: no router prefix (`openrouter/anthropic/...`), lower case. */
function bare(id: string): string {
  return id.slice(id.lastIndexOf("/") + 1).toLowerCase()
}

/**
 * Up to `limit` catalog ids or aliases (the name that matched) close to `id`, closest first; ties keep catalog order. Only
 * names within a third of the longer name's length in edits count, so a stray id suggests nothing.
 */
export function suggestModels(id: string, rows: readonly ModelInfo[] = MODEL_CATALOG, limit = 3): string[] {
  const wanted = bare(id)
  if (wanted === "") return []
  const scored: { name: string; d: number; order: number }[] = []
  let order = 0
  for (const row of rows) {
    let best: { name: string; d: number } | undefined
    for (const name of [row.id, ...(row.aliases ?? [])]) {
      const candidate = bare(name)
      const d =
        candidate.startsWith(wanted) || wanted.startsWith(candidate)
          ? Math.abs(candidate.length - wanted.length) / 4
          : levenshtein().distance(wanted, candidate)
      if (!best || d < best.d) best = { name, d }
    }
    if (best && best.d <= Math.max(wanted.length, best.name.length) / 3) scored.push({ ...best, order: order++ })
  }
  scored.sort((a, b) => a.d - b.d || a.order - b.order)
  return [...new Set(scored.map((s) => s.name))].slice(0, limit)
}

/** The `promptline.config.json` entry that adds `id` with its limits (the numbers are the user's to fill). */
export function modelConfigSnippet(id: string, provider: string): string {
  const row = { id, provider, contextWindow: 128000, maxOutput: 8192 }
  return JSON.stringify({ models: [row] })
}
