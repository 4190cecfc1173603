/** One line of a search result: a match or a line of context around one. */
export interface ResultLine {
  line: number
  text: string
  match: boolean
}

/** The matches of one file, in line order, with their context lines. */
export interface FileMatches {
  /** Workspace-relative POSIX path (absolute outside the workspace). */
  path: string
  lines: ResultLine[]
}

/** What a search found: per file, in path order; `capped` when it stopped at the limit. */
export interface SearchResults {
  files: FileMatches[]
  matches: number
  capped: boolean
}

/** Longest line text shown; longer lines (minified code) are cut. */
export const MAX_LINE_CHARS = 300

/** Cuts a result line to MAX_LINE_CHARS. */
export function clipLine(text: string): string {
  const line = text.replace(/\r?\n$/, "")
  return line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)} […]` : line
}

/** Adds a line to a file's result, keeping lines unique and in order (context may overlap a match). */
export function addLine(file: FileMatches, entry: ResultLine): void {
  const last = file.lines[file.lines.length - 1]
  if (last && entry.line <= last.line) {
    const same = file.lines.findLast((l) => l.line === entry.line)
    if (same) same.match ||= entry.match
    return
  }
  file.lines.push(entry)
}

/**
 * Formats results grouped by file: `12: text` for a match, `11- text` for context, `--` between
 * separate groups of one file.
 */
export function formatResults(results: SearchResults, limit: number): string {
  if (results.files.length === 0) return "No matches found."
  const fileWord = results.files.length === 1 ? "file" : "files"
  const matchWord = results.matches === 1 ? "match" : "matches"
  const out = [`Found ${results.matches} ${matchWord} in ${results.files.length} ${fileWord}:`]
  for (const file of results.files) {
    out.push("", file.path)
    const width = String(file.lines[file.lines.length - 1]?.line ?? 1).length
    let previous = -1
    for (const line of file.lines) {
      if (previous !== -1 && line.line > previous + 1) out.push("--")
      out.push(`${String(line.line).padStart(width)}${line.match ? ":" : "-"} ${line.text}`)
      previous = line.line
    }
  }
  if (results.capped) {
    out.push(
      "",
      `[Showing the first ${limit} matches; there are more. Narrow the regex, the path or the file_pattern.]`,
    )
  }
  return out.join("\n")
}
