import { existsSync, readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"
import { describe, expect, it } from "vitest"

/**
 * The public surface, checked: the names each package entry exports are written to api-report.txt (checked
 * in, so every change to the surface shows in review), the root entry stays narrow and documented, and the
 * code snippets in README and docs import only names their entry exports.
 */

const SRC = dirname(fileURLToPath(import.meta.url))
const ROOT = join(SRC, "..")

/** The package entries by subpath, from package.json `exports` (`./dist/x.js` is built from `src/x.ts`). */
function entries(): Map<string, string> {
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
    exports: Record<string, { import: string }>
  }
  const out = new Map<string, string>()
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    const name = subpath === "." ? "promptline" : `promptline/${subpath.slice(2)}`
    out.set(name, join(ROOT, target.import.replace(/^\.\/dist\//, "src/").replace(/\.js$/, ".ts")))
  }
  return out
}

/** The names a module exports (following `export *`), by reading its source. */
function exportedNames(file: string, seen = new Set<string>()): Set<string> {
  const names = new Set<string>()
  if (seen.has(file)) return names
  seen.add(file)
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.ES2022, true)
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement)) {
      const clause = statement.exportClause
      if (clause === undefined) {
        const target = (statement.moduleSpecifier as ts.StringLiteral).text.replace(/\.js$/, ".ts")
        for (const name of exportedNames(join(dirname(file), target), seen)) if (name !== "default") names.add(name)
      } else if (ts.isNamedExports(clause)) {
        for (const e of clause.elements) names.add(e.name.text)
      } else {
        names.add(clause.name.text)
      }
      continue
    }
    const modifiers = ts.canHaveModifiers(statement) ? ts.getModifiers(statement) : undefined
    if (!modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) continue
    if (ts.isVariableStatement(statement)) {
      for (const d of statement.declarationList.declarations) if (ts.isIdentifier(d.name)) names.add(d.name.text)
    } else if (
      (ts.isFunctionDeclaration(statement) ||
        ts.isClassDeclaration(statement) ||
        ts.isInterfaceDeclaration(statement) ||
        ts.isTypeAliasDeclaration(statement) ||
        ts.isEnumDeclaration(statement)) &&
      statement.name
    ) {
      names.add(statement.name.text)
    }
  }
  return names
}

const ENTRIES = entries()
const NAMES = new Map([...ENTRIES].map(([entry, file]) => [entry, [...exportedNames(file)].sort()]))

function report(): string {
  const parts = [...NAMES].map(
    ([entry, names]) =>
      `# ${entry} (${relative(ROOT, ENTRIES.get(entry)!)}): ${names.length} names\n${names.join("\n")}\n`,
  )
  return `${parts.join("\n")}`
}

/** `import { a, type B } from "promptline…"` in Markdown code, as (entry, name) pairs. */
function documentedImports(text: string): { entry: string; name: string }[] {
  const out: { entry: string; name: string }[] = []
  for (const m of text.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+"(promptline(?:\/[a-z-]+)?)"/g)) {
    for (const part of m[1]!.split(",")) {
      const name = part
        .trim()
        .replace(/^type\s+/, "")
        .split(/\s+as\s+/)[0]!
      if (name !== "") out.push({ entry: m[2]!, name })
    }
  }
  return out
}

describe("the public API", () => {
  it("matches the checked-in report of every entry's exported names", async () => {
    await expect(report()).toMatchFileSnapshot("../docs/api-report.txt")
  })

  // 122: tpl() and data() joined the 120 in issue 31; a component cannot mark external text as data without them.
  // 124: registerWireFormat and WireFormatDescriptor joined in issue 30 (a format plugs in through the root entry),
  // and wireFormats() took WIRE_FORMATS' place (the set grows at run time).
  it("the root entry exports named symbols only, at most 124, each with a line in docs/api.md", () => {
    const index = readFileSync(ENTRIES.get("promptline")!, "utf8")
    expect(index).not.toMatch(/^export \*/m)
    const names = NAMES.get("promptline")!
    expect(names.length).toBeLessThanOrEqual(124)
    const doc = readFileSync(join(ROOT, "docs", "api.md"), "utf8")
    const undocumented = names.filter((n) => !new RegExp(`^- \`${n}\``, "m").test(doc))
    expect(undocumented).toEqual([])
  })

  it("every package entry has a source file", () => {
    for (const file of ENTRIES.values()) expect(existsSync(file)).toBe(true)
  })

  it("the subpath lists of src/index.ts, docs/api.md and the README name every package entry and no other", () => {
    const subpaths = [...ENTRIES.keys()].filter((e) => e !== "promptline").sort()
    const header = readFileSync(ENTRIES.get("promptline")!, "utf8").split(/\n(?!\/\/)/)[0]!
    const inIndex = [...header.matchAll(/promptline\/[a-z-]+/g)].map((m) => m[0])
    const api = readFileSync(join(ROOT, "docs", "api.md"), "utf8")
    const inApi = [...api.matchAll(/^\| `(promptline\/[a-z-]+)`/gm)].map((m) => m[1]!)
    const readmeLine = readFileSync(join(ROOT, "README.md"), "utf8")
      .split("\n")
      .find((line) => line.includes("(docs/api.md)"))!
    const inReadme = [...readmeLine.matchAll(/`(?:promptline)?\/([a-z-]+)`/g)].map((m) => `promptline/${m[1]}`)
    for (const listed of [inIndex, inApi, inReadme]) expect([...new Set(listed)].sort()).toEqual(subpaths)
  })

  it("README and docs snippets import only names their entry exports", () => {
    const docs = readdirSync(join(ROOT, "docs"))
      .filter((f) => f.endsWith(".md"))
      .map((f) => join(ROOT, "docs", f))
    const broken: string[] = []
    for (const file of [join(ROOT, "README.md"), ...docs]) {
      for (const { entry, name } of documentedImports(readFileSync(file, "utf8"))) {
        const names = NAMES.get(entry)
        if (!names?.includes(name)) broken.push(`${relative(ROOT, file)}: ${name} from "${entry}"`)
      }
    }
    expect(broken).toEqual([])
  })
})
