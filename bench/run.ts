// Runs the benchmarks in bench/ (all, or those named as arguments); a full run writes bench/results.md, a partial one
// replaces its own rows there.

import { readdir, readFile, writeFile } from "node:fs/promises"
import { arch, cpus, platform, release } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { type Benchmark, type BenchResult, type Machine, resultRow, resultsMarkdown, updateResults } from "./harness.js"

const here = dirname(fileURLToPath(import.meta.url))
const wanted = process.argv.slice(2)

const files = (await readdir(here)).filter((f) => f.endsWith(".bench.ts")).sort()
const names = files.map((f) => f.replace(/\.bench\.ts$/, ""))
const unknown = wanted.filter((w) => !names.includes(w))
if (unknown.length > 0) {
  process.stderr.write(`unknown benchmark: ${unknown.join(", ")} (there are: ${names.join(", ")})\n`)
  process.exit(2)
}

const results: BenchResult[] = []
for (const [i, file] of files.entries()) {
  const name = names[i]!
  if (wanted.length > 0 && !wanted.includes(name)) continue
  process.stdout.write(`\n## ${name}\n`)
  try {
    const mod = (await import(join(here, file))) as { default: Benchmark }
    const metrics = await mod.default.run()
    results.push({ bench: mod.default.name, metrics })
    for (const m of metrics) process.stdout.write(`${resultRow(mod.default.name, m)}\n`)
  } catch (error) {
    // One broken benchmark does not lose the others' figures; the run still fails at the end.
    const message = (error as Error)?.message ?? String(error)
    results.push({ bench: name, metrics: [], error: message })
    process.stdout.write(`failed: ${message}\n`)
  }
}

const first = cpus()[0]
const machine: Machine = {
  cpu: first?.model.trim() ?? "unknown CPU",
  cores: cpus().length,
  os: `${platform()} ${release()} ${arch()}`,
  node: process.version,
}
const date = new Date().toISOString().slice(0, 10)
if (wanted.length === 0) {
  await writeFile(join(here, "results.md"), resultsMarkdown(results, machine, date))
  process.stdout.write("\nwrote bench/results.md\n")
} else {
  // A partial run replaces only its own rows.
  const file = join(here, "results.md")
  const existing = await readFile(file, "utf8").catch(() => "")
  await writeFile(file, updateResults(existing, results, machine, date))
  process.stdout.write(`\nupdated the rows of ${wanted.join(", ")} in bench/results.md\n`)
}
if (results.some((r) => r.error !== undefined)) process.exitCode = 1
