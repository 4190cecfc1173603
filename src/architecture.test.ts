import { readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative, sep } from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"
import { describe, expect, it } from "vitest"
import { clientNames } from "../test/clients/resolve.js"
import { packageName } from "../test/peers/load.js"

/**
 * The import rule of docs/architecture.md, checked on the production sources: a layer imports only from
 * layers above it (earlier in LAYERS), and no file reaches itself again through value imports.
 */

const SRC = dirname(fileURLToPath(import.meta.url))

/** The layers from the top (imported by everything below) down. `root` is the files directly in src/. */
const LAYERS = [
  "root",
  "formats",
  "models",
  "context",
  "tools",
  "prompt",
  "history",
  "providers",
  "config",
  "cache",
  "inspect",
  "agent",
  "gateway",
  "replay",
  "cli",
  "index",
] as const

interface Edge {
  from: string
  to: string
  /** Every name the statement brings in is a type (`import type`, or only `type` specifiers). */
  typeOnly: boolean
  /** An `import()` expression: loaded on first use, after both files have loaded, so it closes no load cycle. */
  dynamic: boolean
}

function productionFiles(dir: string): string[] {
  const out: string[] = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) {
      if (entry.name !== "test-helpers" && entry.name !== "__snapshots__") out.push(...productionFiles(path))
    } else if (/\.ts$/.test(entry.name) && !/(\.test|\.d|^test-helpers)\.ts$/.test(entry.name)) {
      out.push(path)
    }
  }
  return out
}

/** The wire-format descriptors: pure data in providers/ that every layer may read (providers/descriptor.ts). */
const FORMATS_LAYER = /^providers\/(descriptors?\.ts|[^/]+\/descriptor\.ts)$/

function layerOf(file: string): string {
  const parts = relative(SRC, file).split(sep)
  if (parts.length === 1) return parts[0] === "index.ts" ? "index" : "root"
  if (FORMATS_LAYER.test(parts.join("/"))) return "formats"
  return parts[0]!
}

function edgesOf(file: string): Edge[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.ES2022, true)
  const edges: Edge[] = []
  const add = (specifier: ts.Expression | undefined, typeOnly: boolean, dynamic = false) => {
    if (!specifier || !ts.isStringLiteral(specifier) || !specifier.text.startsWith(".")) return
    edges.push({ from: file, to: join(dirname(file), specifier.text.replace(/\.js$/, ".ts")), typeOnly, dynamic })
  }
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause
      const named = clause?.namedBindings
      const allTypes =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            named !== undefined &&
            ts.isNamedImports(named) &&
            named.elements.length > 0 &&
            named.elements.every((e) => e.isTypeOnly)))
      add(node.moduleSpecifier, allTypes)
    } else if (ts.isExportDeclaration(node)) {
      const named = node.exportClause
      const allTypes =
        node.isTypeOnly ||
        (named !== undefined && ts.isNamedExports(named) && named.elements.every((e) => e.isTypeOnly))
      add(node.moduleSpecifier, allTypes)
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      add(node.arguments[0], false, true)
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return edges
}

const files = productionFiles(SRC)
const edges = files.flatMap(edgesOf)

/** The cycles a depth-first walk meets in the graph of `graph` (each as a path back to its start). */
function cycles(graph: readonly Edge[]): string[] {
  const next = new Map<string, string[]>()
  for (const e of graph) next.set(e.from, [...(next.get(e.from) ?? []), e.to])
  const state = new Map<string, "open" | "done">()
  const found: string[] = []
  const stack: string[] = []
  const walk = (file: string) => {
    state.set(file, "open")
    stack.push(file)
    for (const to of next.get(file) ?? []) {
      const s = state.get(to)
      if (s === "open") found.push([...stack.slice(stack.indexOf(to)), to].map((f) => relative(SRC, f)).join(" -> "))
      else if (s === undefined) walk(to)
    }
    stack.pop()
    state.set(file, "done")
  }
  for (const file of [...next.keys()].sort()) if (!state.has(file)) walk(file)
  return found
}

describe("the layer rule", () => {
  it("knows the layer of every production file", () => {
    const unknown = [...new Set(files.map(layerOf))].filter((l) => !(LAYERS as readonly string[]).includes(l))
    expect(unknown).toEqual([])
  })

  it("no production file imports from a layer below its own", () => {
    const rank = (file: string) => (LAYERS as readonly string[]).indexOf(layerOf(file))
    const upward = edges
      .filter((e) => rank(e.to) > rank(e.from))
      .map((e) => `${relative(SRC, e.from)} -> ${relative(SRC, e.to)}${e.typeOnly ? " (type)" : ""}`)
    expect(upward).toEqual([])
  })

  it("the gateway, the replay server, the cache explainer and the providers import nothing from the reference agent", () => {
    const served = ["gateway", "replay", "cache", "providers"]
    const intoAgent = edges
      .filter((e) => served.includes(layerOf(e.from)) && layerOf(e.to) === "agent")
      .map((e) => `${relative(SRC, e.from)} -> ${relative(SRC, e.to)}`)
    expect(intoAgent).toEqual([])
  })

  it("every relative import names a file that exists", () => {
    const known = new Set(files)
    const missing = edges.filter((e) => !known.has(e.to)).map((e) => `${relative(SRC, e.from)} -> ${e.to}`)
    expect(missing).toEqual([])
  })

  it("no cycle of static value imports between files (a lazy `import()` back is allowed)", () => {
    expect(cycles(edges.filter((e) => !e.typeOnly && !e.dynamic))).toEqual([])
  })

  it("no cycle made of type imports alone (a cycle may go back only through `import type`, one way)", () => {
    expect(cycles(edges.filter((e) => e.typeOnly))).toEqual([])
  })
})

describe("the build's packages", () => {
  /** The packages a file names in an import, an export or an `import()` (bare specifiers; `node:` ones left out). */
  const packagesOf = (file: string): string[] =>
    [...readFileSync(file, "utf8").matchAll(/(?:\bfrom|\bimport\(?)\s*"([^".][^"]*)"/g)]
      .map((m) => packageName(m[1]!))
      .filter((name) => !name.startsWith("node:"))

  it("no production file imports an official SDK client (test/clients/), not even its types: the build runs without them", () => {
    const clients = new Set(clientNames())
    const imports = files.flatMap((file) =>
      packagesOf(file)
        .filter((name) => clients.has(name))
        .map((name) => `${relative(SRC, file)} -> ${name}`),
    )
    expect(imports).toEqual([])
  })
})
