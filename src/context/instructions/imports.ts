import { dirname, isAbsolute, join, resolve } from "node:path"
import { type Diagnostic, diagnostic } from "../../diagnostics.js"
import { isInside, realPath } from "../paths.js"
import { codeRanges, insideRanges } from "./code-spans.js"
import { splitFrontmatter } from "./frontmatter.js"
import { readTextFile } from "./read.js"

/** Imports nest at most this many hops below the file that starts them. */
export const MAX_IMPORT_DEPTH = 5

/**
 * Where imports may come from and how files are named in diagnostics. A file inside the workspace (and any
 * file a project file starts) imports only from the workspace; a user file also from home. `allowOutside`
 * lifts both limits.
 */
export interface ImportScope {
  home: string
  /** The workspace root. */
  workspace: string
  allowOutside?: boolean
  display: (abs: string) => string
}

/** The text with its imports expanded, the files they brought in, and what went wrong. */
export interface ImportResult {
  text: string
  /** Absolute paths of every imported file, in order of appearance. */
  imported: string[]
  diagnostics: Diagnostic[]
}

// `@` at the start of a line or after whitespace or an opening bracket, then a path with a `/` or a `.`.
const IMPORT = /(^|[\s([])@((?:~\/)?[^\s`@<>"'*?|]*[./][^\s`@<>"'*?|]*)/g
const TRAILING = /[.,;:!?)\]]+$/

function lineAt(text: string, offset: number): number {
  let line = 1
  for (let i = 0; i < offset; i++) if (text.charCodeAt(i) === 10) line++
  return line
}

/** Why an import of `real` is refused, or undefined when it may be read; `narrow`: the workspace only. */
function refusal(real: string, scope: ImportScope, narrow: boolean): string | undefined {
  if (scope.allowOutside || isInside(scope.workspace, real)) return undefined
  if (narrow) return `${scope.display(real)} lies outside the workspace, and a project file imports only from it`
  if (isInside(scope.home, real)) return undefined
  return `${scope.display(real)} lies outside the workspace and home`
}

/** Files whose text the prompt already has whenever the importing file's: real path → why (naming the other file). */
export type GivenFiles = ReadonlyMap<string, string>

async function expand(
  text: string,
  fromAbs: string,
  scope: ImportScope,
  narrow: boolean,
  chain: string[],
  out: ImportResult,
  given: GivenFiles,
): Promise<string> {
  const ranges = codeRanges(text)
  const matches = [...text.matchAll(IMPORT)]
  let result = ""
  let last = 0
  for (const m of matches) {
    const start = m.index + m[1]!.length
    if (insideRanges(ranges, start)) continue
    const spec = m[2]!.replace(TRAILING, "")
    if (spec === "" || spec === "." || spec === "..") continue
    const where = { path: scope.display(fromAbs), line: lineAt(text, start) }
    const target = spec.startsWith("~/")
      ? join(scope.home, spec.slice(2))
      : isAbsolute(spec)
        ? spec
        : resolve(dirname(fromAbs), spec)
    const real = realPath(target)
    if (real === undefined) {
      out.diagnostics.push(diagnostic("info", "import-not-found", `\`@${spec}\` names no file; left as text`, where))
      continue
    }
    const refused = refusal(real, scope, narrow)
    if (refused !== undefined) {
      out.diagnostics.push(diagnostic("warning", "import-outside", `\`@${spec}\` not imported: ${refused}`, where))
      continue
    }
    if (chain.includes(real)) {
      out.diagnostics.push(
        diagnostic("warning", "import-cycle", `\`@${spec}\` imports a file already being imported (a cycle)`, where),
      )
      continue
    }
    const already = given.get(real)
    if (already !== undefined) {
      // The same text twice would only cost tokens: the reference stays as written.
      const message = `\`@${spec}\` not imported: ${already}, so its text is not given twice`
      out.diagnostics.push(diagnostic("info", "import-repeated", message, where))
      continue
    }
    if (chain.length > MAX_IMPORT_DEPTH) {
      out.diagnostics.push(
        diagnostic("warning", "import-too-deep", `\`@${spec}\` is more than ${MAX_IMPORT_DEPTH} imports deep`, where),
      )
      continue
    }
    const read = await readTextFile(real)
    if (!read.ok) {
      out.diagnostics.push(
        diagnostic("warning", "import-unreadable", `\`@${spec}\` not imported: ${read.message}`, where),
      )
      continue
    }
    if (read.capped || read.invalidUtf8) {
      const what = read.capped ? "cut at 1 MiB" : "has invalid UTF-8 (replaced)"
      out.diagnostics.push(diagnostic("warning", "import-damaged", `\`@${spec}\` ${what}`, where))
    }
    out.imported.push(real)
    const body = splitFrontmatter(read.text).body.trimEnd()
    const expanded = await expand(
      body,
      real,
      scope,
      narrow || isInside(scope.workspace, real),
      [...chain, real],
      out,
      given,
    )
    result += text.slice(last, start) + expanded
    last = start + 1 + spec.length
  }
  return result + text.slice(last)
}

/**
 * Replaces each `@path` import (outside code) with the file's text, recursively, within the limits;
 * `from` is the scope of the file the text comes from. A file in `given` is not imported (an `import-repeated`
 * note says which other file gives its text).
 */
export async function expandImports(
  text: string,
  fromAbs: string,
  scope: ImportScope,
  from: "user" | "project",
  given: GivenFiles = new Map(),
): Promise<ImportResult> {
  const out: ImportResult = { text: "", imported: [], diagnostics: [] }
  // The caller already read it; a path that no longer resolves is kept as given.
  const start = realPath(fromAbs) ?? fromAbs
  const narrow = from === "project" || isInside(scope.workspace, fromAbs)
  out.text = await expand(text, fromAbs, scope, narrow, [start], out, given)
  return out
}
