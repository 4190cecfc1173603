/**
 * The benchmark harness. Each `bench/<name>.bench.ts` default-exports a Benchmark; `npm run bench`
 * runs them all (or the ones named on the command line) in one process and writes bench/results.md.
 */

/** One measured figure, ours next to the peer's from the same run. */
export interface Metric {
  /** What is measured, e.g. "full build (claude variant)". */
  name: string
  /** Unit of `ours` and `peer.value`, e.g. "µs", "MB/s", "tokens", "%". */
  unit: string
  ours: number
  /** The peer measured in the same run, when the issue names one. */
  peer?: { name: string; value: number }
  /** Whether a lower or a higher figure is better; decides how the ratio reads. */
  better: "lower" | "higher"
  /** The target from the issue, in words, e.g. "≥ 2x the SDK". */
  target?: string
  /** Whether the target is met, when it can be judged from the figures. */
  met?: boolean
}

/** A benchmark: one file in bench/, measuring our code and its peer in the same process run. */
export interface Benchmark {
  name: string
  run(): Promise<Metric[]>
}

/** What one benchmark produced: its metrics, or the error that stopped it. */
export interface BenchResult {
  bench: string
  metrics: Metric[]
  error?: string
}

/** The machine a run happened on, printed with the results. */
export interface Machine {
  cpu: string
  cores: number
  os: string
  node: string
}

/** How many times better ours is than the peer (>1 means ours is better). */
export function ratio(m: Metric): number | undefined {
  if (!m.peer || m.peer.value === 0 || m.ours === 0) return undefined
  return m.better === "lower" ? m.peer.value / m.ours : m.ours / m.peer.value
}

/** Times `fn` over `iterations` runs after `warmup` runs; returns each run's duration in µs. */
export async function sample(
  fn: () => unknown,
  iterations: number,
  warmup = Math.ceil(iterations / 10),
): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn()
  const out: number[] = []
  for (let i = 0; i < iterations; i++) {
    const t0 = process.hrtime.bigint()
    await fn()
    out.push(Number(process.hrtime.bigint() - t0) / 1000)
  }
  return out
}

/** The q-quantile (0..1) of a list of numbers. */
export function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  if (sorted.length === 0) return Number.NaN
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.round(q * (sorted.length - 1))))
  return sorted[idx]!
}

export const median = (values: number[]): number => quantile(values, 0.5)

/** Formats a figure: thousands separators for whole numbers, about three significant digits otherwise. */
export function formatFigure(n: number): string {
  if (!Number.isFinite(n)) return String(n)
  if (Number.isInteger(n)) return n.toLocaleString("en-US")
  if (Math.abs(n) >= 100) return Math.round(n).toLocaleString("en-US")
  return Math.abs(n) >= 1 ? n.toFixed(2) : n.toPrecision(3)
}

/** The ratio in words for a table cell: `2.31x`, or `—` without a peer. */
export function formatRatio(m: Metric): string {
  const r = ratio(m)
  if (r === undefined) return "—"
  return `${r >= 10 ? r.toFixed(1) : r >= 0.1 ? r.toFixed(2) : r.toPrecision(2)}x`
}

/** The target cell: the target in words, ✓ or ✗ when it can be judged. */
export function formatTarget(m: Metric): string {
  if (!m.target) return ""
  return m.met === undefined ? m.target : `${m.target} ${m.met ? "✓" : "✗"}`
}

const cellText = (text: string): string => text.replace(/\|/g, "\\|").replace(/\n/g, " ")

/** One table row: benchmark, metric, our figure, the peer, the peer's figure, the ratio, the target. */
export function resultRow(bench: string, m: Metric): string {
  const peer = m.peer ? [cellText(m.peer.name), `${formatFigure(m.peer.value)} ${m.unit}`] : ["—", "—"]
  const cells = [
    bench,
    cellText(m.name),
    `${formatFigure(m.ours)} ${m.unit}`,
    ...peer,
    formatRatio(m),
    cellText(formatTarget(m)),
  ]
  return `| ${cells.join(" | ")} |`
}

/** bench/results.md: the machine, one table of every metric with the peer's figure from the same run, failures. */
export function resultsMarkdown(results: readonly BenchResult[], machine: Machine, date: string): string {
  const rows = results.flatMap((r) => r.metrics.map((m) => resultRow(r.bench, m)))
  const failed = results.filter((r) => r.error !== undefined)
  const judged = results.flatMap((r) => r.metrics).filter((m) => m.met !== undefined)
  const met = judged.filter((m) => m.met).length
  const lines = [
    "# Benchmark results",
    "",
    `Written by \`npm run bench\` on ${date}. Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.os}, Node.js ${machine.node}.`,
    "",
    "Each benchmark measures our code and its peer in the same process run, one after the other. Ratio: how many",
    "times better our figure is than the peer's (above 1: ours is better; for times, peer ÷ ours).",
    judged.length > 0 ? `Targets met: ${met} of ${judged.length}.` : "",
    "",
    "| benchmark | metric | ours | peer | peer's figure | ratio | target |",
    "|---|---|--:|---|--:|--:|---|",
    ...rows,
  ]
  if (failed.length > 0) {
    lines.push("", "## Failed", "")
    for (const f of failed) lines.push(`- ${f.bench}: ${cellText(f.error ?? "")}`)
  }
  return `${lines.filter((l, i, all) => !(l === "" && all[i - 1] === "")).join("\n")}\n`
}

/**
 * bench/results.md after a run of some benchmarks only: their rows replace their old rows (in benchmark order
 * among the others), the other rows stay, the count of targets met is taken again over the whole table, and a
 * line names what was updated and when (replacing the lines of earlier updates of the same benchmarks only). A
 * file without the table is written whole instead.
 */
export function updateResults(
  existing: string,
  results: readonly BenchResult[],
  machine: Machine,
  date: string,
): string {
  const lines = existing.split("\n")
  const first = lines.findIndex((l) => l.startsWith("| benchmark |"))
  if (first < 0) return resultsMarkdown(results, machine, date)
  let end = first + 2
  while (end < lines.length && lines[end]!.startsWith("| ")) end++
  const ran = new Set(results.map((r) => r.bench))
  const benchOf = (row: string) => row.slice(2, row.indexOf(" |", 2))
  const kept = lines.slice(first + 2, end).filter((row) => !ran.has(benchOf(row)))
  const fresh = results.flatMap((r) => r.metrics.map((m) => resultRow(r.bench, m)))
  const rows = [...kept, ...fresh].sort((a, b) => benchOf(a).localeCompare(benchOf(b)))
  // A stable sort keeps each benchmark's own rows in the order it printed them.
  const targets = (cells: string[]) => cells.map((r) => r.split(" | ").at(-1) ?? "")
  const judged = targets(rows).filter((t) => /[✓✗] \|$/.test(t))
  const met = judged.filter((t) => t.includes("✓")).length
  // A note on earlier updated rows goes when every benchmark it names ran again; the others' notes stay.
  const stale = (line: string) => {
    const named = /^Rows of (.+?) updated /.exec(line)?.[1]?.split(", ")
    return named?.every((bench) => ran.has(bench)) === true
  }
  const head = lines
    .slice(0, first)
    .filter((l) => !stale(l))
    .map((l) => (l.startsWith("Targets met:") ? `Targets met: ${met} of ${judged.length}.` : l))
  while (head.at(-1) === "") head.pop()
  const updated = `Rows of ${[...ran].join(", ")} updated by \`npm run bench -- ${[...ran].join(" ")}\` on ${date} (${machine.cpu}, ${machine.cores} cores, Node.js ${machine.node}).`
  const failed = results.filter((r) => r.error !== undefined)
  const tail = lines.slice(end).join("\n").trimEnd()
  const failures = failed.map((f) => `- ${f.bench}: ${cellText(f.error ?? "")}`)
  return `${[...head, updated, "", ...lines.slice(first, first + 2), ...rows].join("\n")}\n${tail ? `${tail}\n` : ""}${failures.length > 0 ? `\n## Failed (partial run)\n\n${failures.join("\n")}\n` : ""}`
}
