// bench/shadows: the hand-written stand-ins for libraries, each against the library it replaces in the same run.
// - Context check: `parseContext` on a gathered-style context, which the quick check (context/quick-parse.ts)
//   vouches for, against the same context with one field the quick check leaves to zod (`tools: {}`), so zod is
//   loaded and its schema built: the first check in a fresh process of the built package (run `npm run build`
//   first), then per check in a warm process.
// - Frontmatter: ten rule-file frontmatter blocks read by plain-fields (instructions/plain-fields.ts) against
//   `yaml` (import and parseDocument().toJS()), first read in a fresh process, then per block warm.
// - The watch: warm gathers of the gather benchmark's monorepo with the work-tree watch (context/work-tree-watch.ts,
//   `git status` kept while nothing changed) against `watch: false` (`git status` every gather).
// The token counter against gpt-tokenizer is bench/tokens.

import { execFileSync } from "node:child_process"
import { existsSync } from "node:fs"
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { parseDocument } from "yaml"
import { gather } from "../src/context/gather.js"
import { plainFields } from "../src/context/instructions/plain-fields.js"
import { createContext, type PromptContext, promptContextSchema } from "../src/context/prompt-context.js"
import { quickParseContext } from "../src/context/quick-parse.js"
import { generate } from "./gather.bench.js"
import { type Benchmark, type Metric, median, sample } from "./harness.js"

const DIST = fileURLToPath(new URL("../dist/index.js", import.meta.url))
const PLAIN_FIELDS = fileURLToPath(new URL("../src/context/instructions/plain-fields.ts", import.meta.url))
const FRESH_RUNS = 15
const WARM_GATHERS = 15

/** A context as gather makes it: instruction files with activations, skills, git. */
function gatheredContext(): PromptContext {
  const rule = (i: number) => `Rule ${i}: ${"keep the code simple and tested. ".repeat(8)}\n`
  return createContext({
    cwd: "/work/repo",
    platform: { os: "Linux", shell: "/bin/bash", home: "/home/dev" },
    date: "2026-12-01",
    model: { id: "claude-sonnet-4-5", provider: "anthropic" },
    git: { root: "/work/repo", branch: "main", status: " M src/a.ts\n?? notes.md" },
    instructions: [
      ...Array.from({ length: 30 }, (_, i) => ({
        path: `packages/p${i}/AGENTS.md`,
        convention: "agents-md",
        scope: "project" as const,
        text: rule(i),
      })),
      ...Array.from({ length: 10 }, (_, i) => ({
        path: `.cursor/rules/r${i}.mdc`,
        convention: "cursor",
        scope: "project" as const,
        text: rule(40 + i),
        activation: { when: "paths" as const, globs: [`packages/p${i}/**`] },
      })),
    ],
    skills: [{ name: "release", description: "Cut a release", path: ".claude/skills/release/SKILL.md" }],
  })
}

/** Frontmatter blocks as rule files carry them (the conventions of the gather benchmark's monorepo). */
const BLOCKS = [
  "globs: packages/p0/**",
  "globs: packages/p1/**\nalwaysApply: false",
  'paths: ["**/*.test.ts"]',
  'paths: ["src/**/*.ts", "test/**"]',
  "trigger: always_on",
  "trigger: model_decision\ndescription: Rules for the database layer",
  "description: Style of the React components\nglobs: src/components/**",
  "alwaysApply: true",
  "applyTo: '**/*.py'",
  "name: release\ndescription: Cut a release from main",
]

/** Runs `script` as an ES module in a fresh Node process (with `args` before it); returns what it prints. */
function fresh(script: string, args: string[] = []): string {
  return execFileSync(process.execPath, [...args, "--input-type=module", "-e", script], { encoding: "utf8" }).trim()
}

/** The milliseconds of the first `parseContext` of `file`'s context in a fresh process of the built package. */
function freshParse(file: string): number {
  return Number(
    fresh(
      [
        `const { parseContext } = await import(${JSON.stringify(pathToFileURL(DIST).href)})`,
        `const { readFileSync } = await import("node:fs")`,
        `const value = JSON.parse(readFileSync(${JSON.stringify(file)}, "utf8"))`,
        "const t0 = process.hrtime.bigint()",
        "parseContext(value)",
        "process.stdout.write(String(Number(process.hrtime.bigint() - t0) / 1e6))",
      ].join("\n"),
    ),
  )
}

/** The milliseconds of reading every block the first time in a fresh process: ours, or yaml's import and parse. */
function freshFrontmatter(reader: "plain-fields" | "yaml"): number {
  const blocks = JSON.stringify(BLOCKS)
  const body =
    reader === "yaml"
      ? [
          "const t0 = process.hrtime.bigint()",
          `const { parseDocument } = await import("yaml")`,
          `for (const b of ${blocks}) parseDocument(b, { prettyErrors: false, uniqueKeys: false }).toJS()`,
        ]
      : [
          `const { plainFields } = await import(${JSON.stringify(pathToFileURL(PLAIN_FIELDS).href)})`,
          "const t0 = process.hrtime.bigint()",
          `for (const b of ${blocks}) if (plainFields(b) === undefined) throw new Error("not plain: " + b)`,
        ]
  const script = [...body, "process.stdout.write(String(Number(process.hrtime.bigint() - t0) / 1e6))"].join("\n")
  return Number(fresh(script, reader === "yaml" ? [] : ["--import", "tsx"]))
}

const bench: Benchmark = {
  name: "shadows",
  async run(): Promise<Metric[]> {
    if (!existsSync(DIST)) throw new Error("dist/ is missing: run `npm run build` before this benchmark")
    const metrics: Metric[] = []
    const dir = await mkdtemp(join(tmpdir(), "promptline-bench-shadows-"))
    try {
      // Context check.
      const context = JSON.parse(JSON.stringify(gatheredContext())) as Record<string, unknown>
      const toZod = { ...context, tools: {} }
      if (quickParseContext(context) === undefined) throw new Error("the quick check should vouch for the context")
      if (quickParseContext(toZod) !== undefined) throw new Error("the quick check should leave `tools` to zod")
      const quickFile = join(dir, "quick.json")
      const zodFile = join(dir, "zod.json")
      await writeFile(quickFile, JSON.stringify(context))
      await writeFile(zodFile, JSON.stringify(toZod))
      const quick: number[] = []
      const zod: number[] = []
      for (let i = 0; i < FRESH_RUNS; i++) {
        quick.push(freshParse(quickFile))
        zod.push(freshParse(zodFile))
      }
      metrics.push({
        name: "context check: first parseContext in a fresh process of the built package (40 instruction files)",
        unit: "ms",
        ours: median(quick),
        peer: { name: "zod (loaded, schema built, safeParse)", value: median(zod) },
        better: "lower",
      })
      const warmQuick = await sample(() => quickParseContext(context), 2000)
      const warmZod = await sample(() => promptContextSchema.safeParse(context), 2000)
      metrics.push({
        name: "context check: per check, warm process",
        unit: "µs",
        ours: median(warmQuick),
        peer: { name: "zod safeParse", value: median(warmZod) },
        better: "lower",
      })

      // Frontmatter.
      for (const b of BLOCKS) {
        const ours = JSON.stringify(plainFields(b))
        const theirs = JSON.stringify(parseDocument(b, { prettyErrors: false, uniqueKeys: false }).toJS())
        if (ours !== theirs) throw new Error(`plain-fields and yaml disagree on ${JSON.stringify(b)}`)
      }
      const plain: number[] = []
      const yaml: number[] = []
      for (let i = 0; i < FRESH_RUNS; i++) {
        plain.push(freshFrontmatter("plain-fields"))
        yaml.push(freshFrontmatter("yaml"))
      }
      metrics.push({
        name: `frontmatter: first read of ${BLOCKS.length} rule-file blocks in a fresh process`,
        unit: "ms",
        ours: median(plain),
        peer: { name: "yaml (imported, parseDocument().toJS())", value: median(yaml) },
        better: "lower",
      })
      const warmPlain = await sample(() => BLOCKS.map(plainFields), 2000)
      const warmYaml = await sample(
        () => BLOCKS.map((b) => parseDocument(b, { prettyErrors: false, uniqueKeys: false }).toJS()),
        500,
      )
      metrics.push({
        name: `frontmatter: ${BLOCKS.length} blocks, warm process`,
        unit: "µs",
        ours: median(warmPlain),
        peer: { name: "yaml parseDocument().toJS()", value: median(warmYaml) },
        better: "lower",
      })

      // The watch.
      const root = join(dir, "repo")
      const home = join(dir, "home")
      await mkdir(root)
      await mkdir(home)
      await generate(root)
      const options = (watch: boolean) => ({
        cwd: root,
        home,
        env: {},
        trust: true,
        mcp: false,
        date: "2025-01-01",
        model: { id: "bench", provider: "none" },
        watch,
      })
      // Five gathers first: the third plans the watch, the fourth confirms, the fifth reuses.
      const watched = (await sample(() => gather(options(true)), WARM_GATHERS, 5)).map((us) => us / 1000)
      const unwatched = (await sample(() => gather(options(false)), WARM_GATHERS, 5)).map((us) => us / 1000)
      metrics.push({
        name: "work tree: warm gather of the gather benchmark's monorepo (5,000 files), nothing changed",
        unit: "ms",
        ours: median(watched),
        peer: { name: "watch: false (git status every gather)", value: median(unwatched) },
        better: "lower",
      })
      return metrics
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  },
}

export default bench
