/**
 * SEARCH/REPLACE blocks: parsing the diff text of replace_in_file and applying it to a file's text.
 * Pure functions on strings (LF line breaks).
 */

/** One SEARCH/REPLACE block of a diff. */
export interface EditBlock {
  /** 1-based position of the block in the diff. */
  index: number
  search: string
  replace: string
}

/** How a block found its place: the exact text, line-trimmed lines, or its first and last lines. */
export type MatchStrategy = "exact" | "trimmed" | "anchor" | "empty-file"

/** The fate of one block. */
export type BlockResult =
  | { index: number; ok: true; strategy: MatchStrategy; startLine: number; endLine: number }
  | { index: number; ok: false; firstLine: string; reason: string }

const SEARCH_MARK = /^\s*(?:<{3,}|-{3,})\s*SEARCH\s*>?\s*$/
const DIVIDER_MARK = /^\s*={3,}\s*$/
const REPLACE_MARK = /^\s*(?:>{3,}|\+{3,})\s*REPLACE\s*<?\s*$/

/**
 * Parses the diff into blocks. Accepts `<<<<<<< SEARCH` / `=======` / `>>>>>>> REPLACE` and the
 * `------- SEARCH` / `=======` / `+++++++ REPLACE` spelling; text outside blocks is ignored. A last
 * block missing only its REPLACE marker is accepted.
 */
export function parseEditBlocks(diff: string): { blocks: EditBlock[]; errors: string[] } {
  const lines = diff.replace(/\r\n/g, "\n").split("\n")
  const blocks: EditBlock[] = []
  const errors: string[] = []
  let state = "outside" as "outside" | "search" | "replace"
  let search: string[] = []
  let replace: string[] = []
  let startedAt = 0
  const finish = () => {
    blocks.push({ index: blocks.length + 1, search: search.join("\n"), replace: replace.join("\n") })
    search = []
    replace = []
    state = "outside"
  }
  for (const [i, line] of lines.entries()) {
    if (state === "outside") {
      if (SEARCH_MARK.test(line)) {
        state = "search"
        startedAt = i + 1
      }
    } else if (state === "search") {
      if (DIVIDER_MARK.test(line)) state = "replace"
      else if (SEARCH_MARK.test(line) || REPLACE_MARK.test(line)) {
        errors.push(
          `block ${blocks.length + 1} (line ${startedAt} of the diff) has no ======= line before line ${i + 1}`,
        )
        search = []
        state = SEARCH_MARK.test(line) ? "search" : "outside"
        startedAt = i + 1
      } else search.push(line)
    } else if (REPLACE_MARK.test(line)) finish()
    else replace.push(line)
  }
  if (state === "replace") finish()
  else if (state === "search") {
    errors.push(`block ${blocks.length + 1} (line ${startedAt} of the diff) ends before its ======= line`)
  }
  return { blocks, errors }
}

interface Place {
  start: number
  end: number
}

function occurrences(text: string, needle: string): number[] {
  const found: number[] = []
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + Math.max(1, needle.length))) {
    found.push(at)
  }
  return found
}

/** Character offsets where each line of `text` starts. */
function lineStarts(text: string): number[] {
  const starts = [0]
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1)
  return starts
}

function lineOf(starts: number[], offset: number): number {
  let lo = 0
  let hi = starts.length - 1
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1
    if (starts[mid]! <= offset) lo = mid
    else hi = mid - 1
  }
  return lo
}

/** Picks the first candidate at or after the cursor (blocks usually come in file order), else the first. */
function pick<T extends { start: number }>(candidates: T[], cursor: number): T | undefined {
  return candidates.find((c) => c.start >= cursor) ?? candidates[0]
}

function searchLines(search: string): string[] {
  const lines = search.split("\n")
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop()
  return lines
}

/** Whole-line matches of `wanted` in the text, comparing lines with `same`. */
function lineMatches(text: string, wanted: string[], same: (a: string, b: string) => boolean): Place[] {
  const lines = text.split("\n")
  const starts = lineStarts(text)
  const places: Place[] = []
  for (let i = 0; i + wanted.length <= lines.length; i++) {
    let all = true
    for (let j = 0; j < wanted.length && all; j++) all = same(lines[i + j]!, wanted[j]!)
    if (all) {
      const last = i + wanted.length - 1
      places.push({ start: starts[i]!, end: starts[last]! + lines[last]!.length })
    }
  }
  return places
}

function anchorMatches(text: string, wanted: string[]): Place[] {
  if (wanted.length < 3) return []
  const first = wanted[0]!.trim()
  const last = wanted[wanted.length - 1]!.trim()
  if (!first || !last) return []
  return lineMatches(text, wanted, () => true).filter((place) => {
    const span = text.slice(place.start, place.end).split("\n")
    return span[0]!.trim() === first && span[span.length - 1]!.trim() === last
  })
}

/** Finds where a block applies, trying exact text, then trimmed lines, then a unique first/last-line anchor. */
function locate(text: string, block: EditBlock, cursor: number): { place: Place; strategy: MatchStrategy } | string {
  const exact = occurrences(text, block.search).map((start) => ({ start, end: start + block.search.length }))
  const chosen = pick(exact, cursor)
  if (chosen) return { place: chosen, strategy: "exact" }
  const wanted = searchLines(block.search)
  const trimmed = pick(
    lineMatches(text, wanted, (a, b) => a.trim() === b.trim()),
    cursor,
  )
  if (trimmed) return { place: trimmed, strategy: "trimmed" }
  const anchors = anchorMatches(text, wanted)
  if (anchors.length === 1) return { place: anchors[0]!, strategy: "anchor" }
  if (anchors.length > 1)
    return `its first and last lines match ${anchors.length} places; add more lines to the SEARCH part`
  return "its SEARCH text matches nothing in the file, even ignoring indentation"
}

/**
 * Applies blocks in order to `text`. A block that cannot be placed is reported and skipped; the
 * others still apply. Returns the new text and one result per block.
 */
export function applyEditBlocks(text: string, blocks: EditBlock[]): { text: string; results: BlockResult[] } {
  let current = text
  let cursor = 0
  const results: BlockResult[] = []
  for (const block of blocks) {
    const firstLine = block.search.split("\n").find((l) => l.trim() !== "") ?? ""
    if (block.search.trim() === "") {
      if (current.trim() === "") {
        current = block.replace
        cursor = current.length
        results.push({ index: block.index, ok: true, strategy: "empty-file", startLine: 1, endLine: lineEnd(current) })
      } else {
        results.push({
          index: block.index,
          ok: false,
          firstLine,
          reason: "its SEARCH part is empty (or only whitespace), which only works on an empty or new file",
        })
      }
      continue
    }
    const found = locate(current, block, cursor)
    if (typeof found === "string") {
      results.push({ index: block.index, ok: false, firstLine, reason: found })
      continue
    }
    const { place, strategy } = found
    let replacement = block.replace
    // A line-based match excludes the final newline, so the replacement drops its own too.
    if (strategy !== "exact" && block.search.endsWith("\n") && replacement.endsWith("\n")) {
      replacement = replacement.slice(0, -1)
    }
    current = current.slice(0, place.start) + replacement + current.slice(place.end)
    cursor = place.start + replacement.length
    const starts = lineStarts(current)
    const startLine = lineOf(starts, place.start) + 1
    const endLine = Math.max(startLine, lineOf(starts, Math.max(place.start, cursor - 1)) + 1)
    results.push({ index: block.index, ok: true, strategy, startLine, endLine })
  }
  return { text: current, results }
}

function lineEnd(text: string): number {
  return Math.max(1, text.split("\n").length - (text.endsWith("\n") ? 1 : 0))
}
