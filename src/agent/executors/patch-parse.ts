/**
 * The patch format GPT models are trained on for apply_patch:
 *
 *   *** Begin Patch
 *   *** Add File: <path>        then the file's lines, each prefixed with "+"
 *   *** Delete File: <path>
 *   *** Update File: <path>     optionally "*** Move to: <path>", then hunks:
 *   @@ [context line]           each hunk: " " context, "-" removed, "+" added lines,
 *                               optionally ending with "*** End of File"
 *   *** End Patch
 */

/** One hunk of an update: the lines to find (`old`) and what replaces them (`new`). */
export interface PatchChunk {
  /** `@@ text` lines before the hunk: each moves the search past the line that equals it. */
  anchors: string[]
  old: string[]
  new: string[]
  /** The hunk must match at the end of the file. */
  atEnd: boolean
}

/** One file operation of a patch. */
export type PatchOp =
  | { type: "add"; path: string; lines: string[] }
  | { type: "delete"; path: string }
  | { type: "update"; path: string; moveTo?: string; chunks: PatchChunk[] }

/** A patch that could not be parsed: the 1-based line of the patch text and what is wrong. */
export interface PatchSyntaxError {
  line: number
  message: string
}

const BEGIN = "*** Begin Patch"
const END = "*** End Patch"
const ADD = "*** Add File: "
const DELETE = "*** Delete File: "
const UPDATE = "*** Update File: "
const MOVE = "*** Move to: "
const END_OF_FILE = "*** End of File"

const isOpHeader = (line: string) =>
  line.startsWith(ADD) || line.startsWith(DELETE) || line.startsWith(UPDATE) || line.trim() === END

/** Removes a shell heredoc wrapper (`apply_patch <<'EOF'` … `EOF`) that models sometimes keep. */
function unwrapHeredoc(lines: string[]): { lines: string[]; offset: number } {
  const first = lines[0]?.trim() ?? ""
  const match = /^(?:apply_patch|applypatch)\s*<<-?\s*['"]?(\w+)['"]?$/.exec(first)
  if (match && lines[lines.length - 1]?.trim() === match[1]) return { lines: lines.slice(1, -1), offset: 1 }
  return { lines, offset: 0 }
}

/** Parses patch text into file operations, or the first syntax error. */
export function parsePatch(text: string): { ops: PatchOp[] } | { error: PatchSyntaxError } {
  let all = text.replace(/\r\n/g, "\n").split("\n")
  let lead = 0
  while (all.length && all[0]!.trim() === "") {
    all = all.slice(1)
    lead++
  }
  while (all.length && all[all.length - 1]!.trim() === "") all = all.slice(0, -1)
  const unwrapped = unwrapHeredoc(all)
  const lines = unwrapped.lines
  const base = lead + unwrapped.offset + 1
  const fail = (i: number, message: string) => ({ error: { line: base + i, message } })
  if (lines[0]?.trim() !== BEGIN) return fail(0, `a patch starts with "${BEGIN}"`)
  if (lines[lines.length - 1]?.trim() !== END || lines.length < 2) {
    return fail(Math.max(0, lines.length - 1), `a patch ends with "${END}" (is it cut short?)`)
  }
  const ops: PatchOp[] = []
  let i = 1
  const last = lines.length - 1
  while (i < last) {
    const line = lines[i]!
    if (line.startsWith(ADD)) {
      const path = line.slice(ADD.length).trim()
      if (!path) return fail(i, "Add File needs a path")
      const body: string[] = []
      i++
      while (i < last && !isOpHeader(lines[i]!)) {
        const content = lines[i]!
        if (content.startsWith("+")) body.push(content.slice(1))
        else if (content === "") body.push("")
        else return fail(i, `every line of an added file starts with "+" (in ${path})`)
        i++
      }
      ops.push({ type: "add", path, lines: body })
    } else if (line.startsWith(DELETE)) {
      const path = line.slice(DELETE.length).trim()
      if (!path) return fail(i, "Delete File needs a path")
      ops.push({ type: "delete", path })
      i++
    } else if (line.startsWith(UPDATE)) {
      const path = line.slice(UPDATE.length).trim()
      if (!path) return fail(i, "Update File needs a path")
      const start = i
      i++
      let moveTo: string | undefined
      if (i < last && lines[i]!.startsWith(MOVE)) {
        moveTo = lines[i]!.slice(MOVE.length).trim()
        if (!moveTo) return fail(i, "Move to needs a path")
        i++
      }
      const parsed = parseChunks(lines, i, last)
      if ("error" in parsed) return fail(parsed.error.index, parsed.error.message)
      i = parsed.next
      if (parsed.chunks.length === 0 && moveTo === undefined) return fail(start, `Update File ${path} has no hunks`)
      ops.push(
        moveTo === undefined
          ? { type: "update", path, chunks: parsed.chunks }
          : { type: "update", path, moveTo, chunks: parsed.chunks },
      )
    } else if (line.trim() === "") {
      i++
    } else {
      return fail(i, `expected "${ADD.trim()}", "${DELETE.trim()}" or "${UPDATE.trim()}", found "${line.slice(0, 80)}"`)
    }
  }
  if (ops.length === 0) return fail(0, "the patch has no file operations")
  return { ops }
}

function parseChunks(
  lines: string[],
  from: number,
  last: number,
): { chunks: PatchChunk[]; next: number } | { error: { index: number; message: string } } {
  const chunks: PatchChunk[] = []
  let current: PatchChunk | undefined
  let anchors: string[] = []
  let i = from
  const close = () => {
    if (current) chunks.push(current)
    current = undefined
  }
  while (i < last && !isOpHeader(lines[i]!)) {
    const line = lines[i]!
    if (line === "@@" || line.startsWith("@@ ")) {
      if (current && current.old.length + current.new.length === 0) {
        return { error: { index: i, message: "a hunk has no lines" } }
      }
      close()
      const anchor = line.slice(2).trim()
      if (anchor) anchors.push(anchor)
      // Consecutive "@@ a" / "@@ b" lines narrow the place step by step.
      if (lines[i + 1]?.startsWith("@@")) {
        i++
        continue
      }
      current = { anchors, old: [], new: [], atEnd: false }
      anchors = []
    } else if (line.trim() === END_OF_FILE) {
      if (!current) return { error: { index: i, message: `"${END_OF_FILE}" outside a hunk` } }
      current.atEnd = true
      close()
    } else {
      if (!current) {
        // The first hunk of a file may leave out its "@@" line.
        if (chunks.length > 0) return { error: { index: i, message: 'a hunk starts with "@@"' } }
        current = { anchors: [], old: [], new: [], atEnd: false }
      }
      const mark = line[0]
      const rest = line.slice(1)
      if (line === "" || mark === " ") {
        current.old.push(rest)
        current.new.push(rest)
      } else if (mark === "-") current.old.push(rest)
      else if (mark === "+") current.new.push(rest)
      else
        return { error: { index: i, message: `a hunk line starts with " ", "-" or "+", found "${line.slice(0, 80)}"` } }
    }
    i++
  }
  if (current && (current as PatchChunk).old.length + (current as PatchChunk).new.length === 0) {
    return { error: { index: i - 1, message: "a hunk has no lines" } }
  }
  close()
  return { chunks, next: i }
}
