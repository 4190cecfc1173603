import { readFileSync } from "node:fs"
import { dirname, join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"
import { describe, expect, it } from "vitest"

/**
 * What importing a public entry or starting the CLI loads (docs/decisions.md, "Lazy loading: an import
 * runs nothing heavy"): the static value imports reachable from the entry reach none of the packages that only some
 * calls need. Those are loaded on first use (`lazyModule`, or `import()` inside the function that needs them).
 */

const SRC = dirname(fileURLToPath(import.meta.url))

/** Packages (and built-ins) too heavy to load before a call needs them. */
const LOADED_ON_FIRST_USE = [
  "zod",
  "yaml",
  "ajv",
  "minisearch",
  "liquidjs",
  "gpt-tokenizer",
  "@modelcontextprotocol/sdk",
  "ws",
  "html-to-text",
  "diff",
  "@vscode/tree-sitter-wasm",
  "node:child_process",
  // CommonJS packages: imported from ES modules, Node parses each whole file for its export names first
  // (70 ms for `ignore`), so they are required on first use instead.
  "jsonc-parser",
  "ignore",
  "picomatch",
  "fastest-levenshtein",
  "eventsource-parser",
]

/** The package a specifier names: `zod/v4` → `zod`, `@scope/pkg/sub` → `@scope/pkg`. */
function packageOf(specifier: string): string {
  if (specifier.startsWith("node:")) return specifier
  const parts = specifier.split("/")
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!
}

/** The specifiers of a file's static value imports and re-exports (type-only ones and `import()` left out). */
function valueImports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.ES2022, true)
  const out: string[] = []
  for (const node of source.statements) {
    let typeOnly = false
    let specifier: ts.Expression | undefined
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause
      const named = clause?.namedBindings
      typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            named !== undefined &&
            ts.isNamedImports(named) &&
            named.elements.length > 0 &&
            named.elements.every((e) => e.isTypeOnly)))
      specifier = node.moduleSpecifier
    } else if (ts.isExportDeclaration(node)) {
      const named = node.exportClause
      typeOnly =
        node.isTypeOnly ||
        (named !== undefined && ts.isNamedExports(named) && named.elements.every((e) => e.isTypeOnly))
      specifier = node.moduleSpecifier
    }
    if (!typeOnly && specifier && ts.isStringLiteral(specifier)) out.push(specifier.text)
  }
  return out
}

/** Every package the entry loads as it is imported, each with the chain of files that reaches it. */
function loadedAtImport(entry: string): Map<string, string[]> {
  const reached = new Map<string, string[]>([[join(SRC, entry), [entry]]])
  const packages = new Map<string, string[]>()
  const queue = [join(SRC, entry)]
  while (queue.length > 0) {
    const file = queue.shift()!
    const chain = reached.get(file)!
    for (const specifier of valueImports(file)) {
      if (specifier.startsWith(".")) {
        const target = join(dirname(file), specifier.replace(/\.js$/, ".ts"))
        if (!reached.has(target)) {
          reached.set(target, [...chain, relative(SRC, target)])
          queue.push(target)
        }
      } else if (!packages.has(packageOf(specifier))) packages.set(packageOf(specifier), chain)
    }
  }
  return packages
}

describe("what an import loads", () => {
  it.each(["index.ts", "cli/main.ts"])("importing %s loads no package a call may not need", (entry) => {
    const loaded = loadedAtImport(entry)
    const heavy = LOADED_ON_FIRST_USE.filter((p) => loaded.has(p)).map((p) => `${p} via ${loaded.get(p)!.join(" > ")}`)
    expect(heavy).toEqual([])
  })

  it("the walk finds packages imported statically (the check can fail)", () => {
    expect(loadedAtImport("lazy-module.ts").has("node:module")).toBe(true)
    expect(loadedAtImport("agent/executors/read-file.ts").has("zod")).toBe(true)
  })
})
