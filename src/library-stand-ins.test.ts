import { readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve, sep } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

/**
 * The hand-written stand-ins for libraries (docs/decisions.md, "Performance policy"): each sits behind one module
 * whose doc comment names what it replaces and the benchmark that justifies it, has the only users listed here, and
 * keeps its parts to itself; its oracle test (against the library or the real tool) sits beside it.
 */
const STAND_INS = [
  {
    module: "context/quick-parse.ts",
    replaces: "zod",
    bench: "npm run bench -- shadows",
    users: ["context/prompt-context.ts"],
    parts: [],
    oracle: "context/quick-parse.test.ts",
  },
  {
    module: "context/instructions/plain-fields.ts",
    replaces: "YAML",
    bench: "npm run bench -- shadows",
    users: ["context/instructions/frontmatter.ts"],
    parts: [],
    oracle: "context/instructions/plain-fields.test.ts",
  },
  {
    module: "history/piece-count.ts",
    replaces: "gpt-tokenizer",
    bench: "npm run bench -- tokens",
    users: ["history/tokens.ts"],
    parts: ["history/pieces.ts", "history/bpe-merge.ts"],
    oracle: "history/piece-count.test.ts",
  },
  {
    module: "context/work-tree-watch.ts",
    replaces: "git status",
    bench: "npm run bench -- shadows",
    users: ["context/git.ts"],
    parts: [],
    oracle: "context/work-tree-watch.test.ts",
  },
]

const SRC = dirname(fileURLToPath(import.meta.url))

function productionFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = join(dir, e.name)
    if (e.isDirectory()) return e.name === "test-helpers" ? [] : productionFiles(full)
    return e.name.endsWith(".ts") && !e.name.endsWith(".test.ts") && !e.name.endsWith("test-helpers.ts") ? [full] : []
  })
}

/** Each production file's relative imports, as files under src/ (POSIX form). */
const imports = new Map(
  productionFiles(SRC).map((file) => {
    const text = readFileSync(file, "utf8")
    const specs = [...text.matchAll(/(?:from|import\()\s*"(\.{1,2}\/[^"]+)"/g)].map((m) =>
      relative(SRC, resolve(dirname(file), m[1]!.replace(/\.js$/, ".ts")))
        .split(sep)
        .join("/"),
    )
    return [relative(SRC, file).split(sep).join("/"), specs] as const
  }),
)
const importersOf = (target: string) => [...imports].filter(([, specs]) => specs.includes(target)).map(([f]) => f)

describe("library stand-ins", () => {
  for (const s of STAND_INS) {
    it(`${s.module} stands in for ${s.replaces} behind one boundary, with its figures and its oracle`, () => {
      const head = /\/\*\*[\s\S]*?\*\//.exec(readFileSync(join(SRC, s.module), "utf8"))?.[0] ?? ""
      expect(head, "the module's first doc comment names what it replaces").toContain(s.replaces)
      expect(head, "and the benchmark that justifies it").toContain(s.bench)
      expect(importersOf(s.module).sort()).toEqual([...s.users].sort())
      for (const part of s.parts) expect(importersOf(part), part).toEqual([s.module])
      expect(readFileSync(join(SRC, s.oracle), "utf8")).toMatch(/fc\.assert/)
    })
  }
})
