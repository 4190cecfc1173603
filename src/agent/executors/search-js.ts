import { readFile, stat } from "node:fs/promises"
import path from "node:path"
import type Picomatch from "picomatch"
import { lazyModule } from "../../lazy-module.js"
import { displayPath } from "../workspace.js"
import { looksBinary } from "./files.js"
import type { SearchQuery } from "./ripgrep.js"
import { addLine, clipLine, type FileMatches, type SearchResults } from "./search-results.js"
import { walk } from "./walk.js"

/** picomatch (CommonJS), required when a search gives a file pattern. */
const picomatch = lazyModule<typeof Picomatch>("picomatch")

const MAX_FILE_BYTES = 10 * 1024 * 1024

/** Compiles the model's regex for JavaScript; an error message when it is not valid. */
export function compileRegex(source: string): RegExp | string {
  try {
    return new RegExp(source)
  } catch (error) {
    return (error as Error).message
  }
}

function searchText(text: string, regex: RegExp, file: FileMatches, query: SearchQuery, results: SearchResults) {
  const lines = text.split(/\r?\n/)
  if (lines[lines.length - 1] === "") lines.pop()
  for (let i = 0; i < lines.length; i++) {
    if (!regex.test(lines[i]!)) continue
    if (results.matches >= query.maxResults) {
      results.capped = true
      return
    }
    results.matches++
    if (i > 0) addLine(file, { line: i, text: clipLine(lines[i - 1]!), match: false })
    addLine(file, { line: i + 1, text: clipLine(lines[i]!), match: true })
    if (i + 1 < lines.length) addLine(file, { line: i + 2, text: clipLine(lines[i + 1]!), match: false })
  }
}

/**
 * The search without ripgrep: the same rules (.gitignore and .ignore honoured, hidden files and
 * node_modules skipped, files over 10 MB and binary files skipped), the same order and output.
 */
export async function searchWithJavaScript(query: SearchQuery): Promise<SearchResults | { error: string }> {
  const regex = compileRegex(query.regex)
  if (typeof regex === "string") return { error: `invalid regex: ${regex}` }
  const results: SearchResults = { files: [], matches: 0, capped: false }
  const info = await stat(query.target)
  const matcher = query.filePattern ? picomatch()(query.filePattern, { basename: true, dot: true }) : undefined
  const candidates: string[] = []
  if (info.isFile()) candidates.push(query.target)
  else {
    for await (const entry of walk({
      root: query.workspace,
      start: query.target,
      recursive: true,
      hidden: false,
      order: "depth",
      signal: query.signal,
    })) {
      if (!entry.isFile) continue
      const rel = path.relative(query.target, entry.absolute).split(path.sep).join("/")
      if (matcher && !matcher(rel)) continue
      candidates.push(entry.absolute)
    }
  }
  for (const file of candidates) {
    if (results.capped || query.signal.aborted) break
    const size = (await stat(file).catch(() => undefined))?.size ?? 0
    if (size > MAX_FILE_BYTES) continue
    const bytes = await readFile(file).catch(() => undefined)
    if (!bytes || bytes.subarray(0, 8192).includes(0) || looksBinary(bytes.subarray(0, 8192))) continue
    const found: FileMatches = { path: displayPath(query.workspace, file), lines: [] }
    searchText(bytes.toString("utf8"), regex, found, query, results)
    if (found.lines.some((l) => l.match)) results.files.push(found)
  }
  return results
}
