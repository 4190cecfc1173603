// Runs the benchmarks in bench/ (all, or those named as arguments) and writes bench/results.md.

import { readdir, writeFile } from "node:fs/promises"
import { cpus } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { type Benchmark, type Metric, ratio } from "./harness.js"

const here = dirname(fileURLToPath(import.meta.url))
const wanted = process.argv.slice(2)

const fmt = (n: number): string =>
  Number.isInteger(n) ? n.toLocaleString("en-US") : n >= 100 ? n.toFixed(0) : n >= 1 ? n.toFixed(2) : n.toPrecision(3)

function row(bench: string, m: Metric): string {
  const r = ratio(m)
  const target = m.target ? `${m.target}${m.met === undefined ? "" : m.met ? " ✓" : " ✗"}` : ""
  return `| ${bench} | ${m.name} | ${fmt(m.ours)} ${m.unit} | ${m.peer ? `${m.peer.name}: ${fmt(m.peer.value)} ${m.unit}` : "—"} | ${r === undefined ? "—" : `${r.toFixed(2)}x`} | ${target} |`
}

const files = (await readdir(here)).filter((f) => f.endsWith(".bench.ts")).sort()
const rows: string[] = []
for (const file of files) {
  const name = file.replace(/\.bench\.ts$/, "")
  if (wanted.length > 0 && !wanted.includes(name)) continue
  const mod = (await import(join(here, file))) as { default: Benchmark }
  process.stdout.write(`\n## ${mod.default.name}\n`)
  const metrics = await mod.default.run()
  for (const m of metrics) {
    const line = row(mod.default.name, m)
    rows.push(line)
    process.stdout.write(`${line}\n`)
  }
}

const cpu = cpus()[0]?.model ?? "unknown CPU"
const report = [
  "# Benchmark results",
  "",
  `Written by \`npm run bench\`. Machine: ${cpu}, ${cpus().length} cores, Node.js ${process.version}.`,
  "Ratio: how many times better our figure is than the peer's, measured in the same run (>1 is better).",
  "",
  "| benchmark | metric | ours | peer | ratio | target |",
  "|---|---|---|---|---|---|",
  ...rows,
  "",
].join("\n")
if (wanted.length === 0) await writeFile(join(here, "results.md"), report)
else process.stdout.write(`\n(only ${wanted.join(", ")} ran; bench/results.md is written by a full run)\n`)
