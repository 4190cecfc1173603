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

export interface Benchmark {
  name: string
  run(): Promise<Metric[]>
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
