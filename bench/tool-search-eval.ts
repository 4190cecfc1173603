/**
 * Scoring of a tool search against the frozen task phrasings (test/fixtures/tool-search/tasks.json): top-1, top-5
 * and mean reciprocal rank (over the first 10 results), per half and per phrasing class.
 */
import type { PhrasingClass, TaskPhrasing } from "../test/fixtures/tool-search/load.js"

/** The figures of one group of phrasings. */
export interface SearchScore {
  count: number
  /** Share of phrasings whose tool comes first. */
  top1: number
  /** Share whose tool is among the first five. */
  top5: number
  /** Mean of 1/rank of the first right tool in the first ten, 0 when it is not there. */
  mrr: number
}

/** A group of phrasings: a half and a class, or every class of the half. */
export interface ScoreGroup {
  split: TaskPhrasing["split"]
  class: PhrasingClass | "all"
}

/** The groups a report shows, in order: each half, all classes first. */
export const SCORE_GROUPS: readonly ScoreGroup[] = (["tune", "held-out"] as const).flatMap((split) =>
  (["all", "direct", "indirect", "far"] as const).map((c) => ({ split, class: c })),
)

/** The 1-based rank of the first right tool among the results, or 0 when none is there. */
export function rankOf(task: Pick<TaskPhrasing, "tool" | "also">, results: readonly string[]): number {
  const right = new Set([task.tool, ...(task.also ?? [])])
  const at = results.findIndex((r) => right.has(r))
  return at + 1
}

/** The score of a search (query → labels of its results, best first, at least ten) over some phrasings. */
export function score(tasks: readonly TaskPhrasing[], ranks: ReadonlyMap<TaskPhrasing, number>): SearchScore {
  const rs = tasks.map((t) => ranks.get(t) ?? 0)
  const n = Math.max(1, rs.length)
  return {
    count: rs.length,
    top1: rs.filter((r) => r === 1).length / n,
    top5: rs.filter((r) => r >= 1 && r <= 5).length / n,
    mrr: rs.reduce((sum, r) => sum + (r >= 1 && r <= 10 ? 1 / r : 0), 0) / n,
  }
}

/** Each phrasing's rank under a search. */
export function ranksOf(
  tasks: readonly TaskPhrasing[],
  search: (query: string) => readonly string[],
): Map<TaskPhrasing, number> {
  return new Map(tasks.map((t) => [t, rankOf(t, search(t.query).slice(0, 10))]))
}

/** The phrasings of a group. */
export function inGroup(tasks: readonly TaskPhrasing[], g: ScoreGroup): TaskPhrasing[] {
  return tasks.filter((t) => t.split === g.split && (g.class === "all" || t.class === g.class))
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`.padStart(6)

/** A text table: one line per group, top-1 / top-5 / MRR of each named search side by side. */
export function scoreTable(tasks: readonly TaskPhrasing[], searches: ReadonlyMap<string, Map<TaskPhrasing, number>>) {
  const names = [...searches.keys()]
  const head = `${"half".padEnd(9)} ${"class".padEnd(9)} ${"n".padStart(4)}  ${names.map((n) => `${n} (top-1 top-5 MRR)`.padEnd(30)).join("")}`
  const lines = [head]
  for (const g of SCORE_GROUPS) {
    const group = inGroup(tasks, g)
    const cells = names.map((name) => {
      const s = score(group, searches.get(name)!)
      return `${pct(s.top1)} ${pct(s.top5)} ${s.mrr.toFixed(3)}`.padEnd(30)
    })
    lines.push(`${g.split.padEnd(9)} ${g.class.padEnd(9)} ${String(group.length).padStart(4)}  ${cells.join("")}`)
  }
  return lines.join("\n")
}
