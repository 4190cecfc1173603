import { realpath } from "node:fs/promises"
import { dirname, isAbsolute, join, resolve } from "node:path"
import { type Diagnostic, diagnostic } from "../../diagnostics.js"
import { isInside } from "../paths.js"
import { codeRanges, insideRanges } from "./code-spans.js"
import { splitFrontmatter } from "./frontmatter.js"
import { readTextFile } from "./read.js"

/** Imports nest at most this many hops below the file that starts them. */
export const MAX_IMPORT_DEPTH = 5

/** Where imports may come from and how files are named in diagnostics. */
export interface ImportScope {
  home: string
  /** Imported files must lie inside one of these folders (the workspace and home), unless `allowOutside`. */
  allowed: string[]
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

async function expand(
  text: string,
  fromAbs: string,
  scope: ImportScope,
  chain: string[],
  out: ImportResult,
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
    let real: string
    try {
      real = await realpath(target)
    } catch {
      out.diagnostics.push(diagnostic("info", "import-not-found", `\`@${spec}\` names no file; left as text`, where))
      continue
    }
    if (!scope.allowOutside && !scope.allowed.some((root) => isInside(root, real))) {
      out.diagnostics.push(
        diagnostic(
          "warning",
          "import-outside",
          `\`@${spec}\` lies outside the workspace and home; not imported`,
          where,
        ),
      )
      continue
    }
    if (chain.includes(real)) {
      out.diagnostics.push(
        diagnostic("warning", "import-cycle", `\`@${spec}\` imports a file already being imported (a cycle)`, where),
      )
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
    const expanded = await expand(body, real, scope, [...chain, real], out)
    result += text.slice(last, start) + expanded
    last = start + 1 + spec.length
  }
  return result + text.slice(last)
}

/** Replaces each `@path` import (outside code) with the file's text, recursively, within the limits. */
export async function expandImports(text: string, fromAbs: string, scope: ImportScope): Promise<ImportResult> {
  const out: ImportResult = { text: "", imported: [], diagnostics: [] }
  let start = fromAbs
  try {
    start = await realpath(fromAbs)
  } catch {
    // the caller already read it; keep the given path
  }
  out.text = await expand(text, fromAbs, scope, [start], out)
  return out
}
