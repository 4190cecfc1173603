// bench/startup: whole-process costs of the built CLI and package (run `npm run build` first): `promptline
// --help`, `promptline prompt --no-mcp` in a small repository, and `import("promptline")`, each against
// `node -e 0` measured in the same rounds (baseline and cases alternate, medians of many runs), and the
// peak memory of `promptline prompt --no-mcp`.

import { spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { type Benchmark, type Metric, median } from "./harness.js"

const ROUNDS = 21
const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const bin = join(root, "bin/promptline.js")
const dist = join(root, "dist/index.js")

/**
 * Prints the process's peak resident memory (KB) to stderr as it exits: the kernel's high-water mark of this
 * program (`VmHWM`, Linux), else `maxRSS`. `maxRSS` alone counts the benchmark process the child was forked
 * from (the mark carries over the fork), so it read the benchmark's own size for small programs.
 */
const MAX_RSS_HOOK = `data:text/javascript,${encodeURIComponent(
  'import { readFileSync, writeSync } from "node:fs"; process.on("exit", () => { let kb = process.resourceUsage().maxRSS; try { kb = Number(/VmHWM:\\s*(\\d+)/.exec(readFileSync("/proc/self/status", "utf8"))[1]) } catch {} writeSync(2, `\\nmaxrss:${kb}\\n`) })',
)}`

interface Run {
  ms: number
  stderr: string
}

function run(args: string[], cwd: string, env: NodeJS.ProcessEnv): Run {
  const t0 = process.hrtime.bigint()
  const out = spawnSync(process.execPath, args, { cwd, env, encoding: "utf8" })
  const ms = Number(process.hrtime.bigint() - t0) / 1e6
  if (out.status !== 0) throw new Error(`node ${args.join(" ")} exited ${out.status}: ${out.stderr}`)
  return { ms, stderr: out.stderr }
}

/** A small git repository with an AGENTS.md and a few source files. */
async function smallRepo(): Promise<{ repo: string; home: string }> {
  const repo = await mkdtemp(join(tmpdir(), "promptline-bench-startup-"))
  const home = await mkdtemp(join(tmpdir(), "promptline-bench-startup-home-"))
  await writeFile(join(repo, "AGENTS.md"), "# Rules\n\n- Use pnpm.\n- Write tests next to the code.\n")
  await mkdir(join(repo, "src"))
  for (let i = 0; i < 20; i++) await writeFile(join(repo, "src", `m${i}.ts`), `export const v${i} = ${i}\n`)
  const git = (...args: string[]) => spawnSync("git", args, { cwd: repo, encoding: "utf8" })
  git("init", "-q")
  git("add", ".")
  git("-c", "user.name=bench", "-c", "user.email=bench@example.invalid", "commit", "-qm", "init")
  return { repo, home }
}

const bench: Benchmark = {
  name: "startup",
  async run(): Promise<Metric[]> {
    if (!existsSync(join(root, "dist/cli/main.js")) || !existsSync(dist))
      throw new Error("dist/ is missing: run `npm run build` before this benchmark")
    const { repo, home } = await smallRepo()
    const env = { ...process.env, HOME: home, NO_COLOR: "1" }
    try {
      const cases = {
        baseline: ["-e", "0"],
        help: [bin, "--help"],
        prompt: [bin, "prompt", "--no-mcp", "--cwd", repo],
        import: ["--input-type=module", "-e", `await import(${JSON.stringify(pathToFileURL(dist).href)})`],
      }
      const times: Record<keyof typeof cases, number[]> = { baseline: [], help: [], prompt: [], import: [] }
      for (const args of Object.values(cases)) run(args, repo, env) // warm the file cache
      for (let i = 0; i < ROUNDS; i++) {
        for (const [name, args] of Object.entries(cases)) {
          times[name as keyof typeof cases].push(run(args, repo, env).ms)
          if (name !== "baseline") times.baseline.push(run(cases.baseline, repo, env).ms)
        }
      }
      const rss = (args: string[]) => {
        const kb = (r: Run) => Number(/maxrss:(\d+)/.exec(r.stderr)?.[1] ?? Number.NaN)
        return median(Array.from({ length: 5 }, () => kb(run(["--import", MAX_RSS_HOOK, ...args], repo, env)))) / 1024
      }
      const promptMb = rss(cases.prompt.slice())
      const baselineMb = rss(cases.baseline.slice())
      const base = median(times.baseline)
      const vs = (name: keyof typeof cases, what: string, limit: number): Metric => {
        const ours = median(times[name])
        return {
          name: `${what}, whole process (median of ${ROUNDS})`,
          unit: "ms",
          ours,
          peer: { name: "node -e 0 (alternated)", value: base },
          better: "lower",
          target: `≤ ${limit}x node -e 0`,
          met: ours <= limit * base,
        }
      }
      return [
        vs("help", "promptline --help", 2.5),
        vs("prompt", "promptline prompt --no-mcp, small repository", 4),
        vs("import", 'import("promptline") in a fresh process', 2),
        {
          name: "peak memory of promptline prompt --no-mcp (max RSS)",
          unit: "MB",
          ours: promptMb,
          peer: { name: "node -e 0", value: baselineMb },
          better: "lower",
          target: "≤ 70 MB",
          met: promptMb <= 70,
        },
      ]
    } finally {
      await rm(repo, { recursive: true, force: true })
      await rm(home, { recursive: true, force: true })
    }
  },
}

export default bench
