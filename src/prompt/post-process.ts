/**
 * Post-processing of rendered prompt text: collapse runs of blank lines, drop headings with nothing
 * under them and separators with nothing between them, trim. Decided by structure: lines inside a
 * fenced code block or a SEARCH/REPLACE example are never touched. Idempotent.
 */

type Line =
  | { kind: "blank"; text: string }
  | { kind: "separator"; text: string }
  | { kind: "heading"; level: number; text: string }
  | { kind: "text"; text: string }
  /** Inside a fence or a diff example: kept byte for byte. */
  | { kind: "verbatim"; text: string }

const FENCE = /^ {0,3}(`{3,}|~{3,})/
const SEARCH_START = /^(<{7}|-{7}) SEARCH\s*$/
const REPLACE_END = /^(>{7}|\+{7}) REPLACE\s*$/
const SEPARATOR = /^ {0,3}(={3,}|-{3,}|\*{3,})\s*$/
const HEADING = /^(#{1,6})[ \t]+\S/

function classify(lines: string[], verbatim?: readonly boolean[]): Line[] {
  const out: Line[] = []
  let fence: string | undefined
  let inDiff = false
  for (const [i, text] of lines.entries()) {
    if (verbatim?.[i]) {
      out.push({ kind: "verbatim", text })
      continue
    }
    if (fence !== undefined) {
      out.push({ kind: "verbatim", text })
      const m = FENCE.exec(text)
      if (m && m[1]![0] === fence[0] && m[1]!.length >= fence.length && text.trim() === m[1]) fence = undefined
      continue
    }
    if (inDiff) {
      out.push({ kind: "verbatim", text })
      if (REPLACE_END.test(text)) inDiff = false
      continue
    }
    const fenceOpen = FENCE.exec(text)
    if (fenceOpen) {
      fence = fenceOpen[1]!
      out.push({ kind: "verbatim", text })
      continue
    }
    if (SEARCH_START.test(text)) {
      inDiff = true
      out.push({ kind: "verbatim", text })
      continue
    }
    if (text.trim() === "") out.push({ kind: "blank", text })
    else if (SEPARATOR.test(text)) out.push({ kind: "separator", text })
    else {
      const h = HEADING.exec(text)
      out.push(h ? { kind: "heading", level: h[1]!.length, text } : { kind: "text", text })
    }
  }
  return out
}

/** Index of the next line that is not blank, or lines.length. */
function nextSolid(lines: Line[], from: number): number {
  let i = from
  while (i < lines.length && lines[i]!.kind === "blank") i++
  return i
}

function dropEmpty(lines: Line[]): Line[] {
  let current = lines
  for (;;) {
    const kept: Line[] = []
    let changed = false
    for (let i = 0; i < current.length; i++) {
      const line = current[i]!
      const next = current[nextSolid(current, i + 1)]
      if (line.kind === "heading") {
        const empty =
          next === undefined || next.kind === "separator" || (next.kind === "heading" && next.level <= line.level)
        if (empty) {
          changed = true
          continue
        }
      } else if (line.kind === "separator") {
        const previous = [...kept].reverse().find((l) => l.kind !== "blank")
        if (previous === undefined || previous.kind === "separator" || next === undefined) {
          changed = true
          continue
        }
      }
      kept.push(line)
    }
    current = kept
    if (!changed) return current
  }
}

function collapseBlanks(lines: Line[]): string[] {
  const out: string[] = []
  for (const line of lines) {
    if (line.kind === "blank") {
      if (out.length === 0 || out[out.length - 1] === "") continue
      out.push("")
    } else out.push(line.text)
  }
  while (out.length > 0 && out[out.length - 1] === "") out.pop()
  return out
}

/** Cleans rendered prompt text; never changes fenced code or SEARCH/REPLACE examples. */
export function postProcess(text: string): string {
  const lines = classify(text.replace(/\r\n/g, "\n").split("\n"))
  return collapseBlanks(dropEmpty(lines)).join("\n")
}

/** A piece of a section: our rendered text, or data that must reach the model unchanged. */
export interface Piece {
  text: string
  verbatim: boolean
}

/**
 * Cleans a section made of pieces: lines that hold any verbatim text (data from files, tools or
 * servers) are kept byte for byte, the rest is cleaned as by `postProcess`.
 */
export function postProcessPieces(pieces: readonly Piece[]): string {
  if (!pieces.some((p) => p.verbatim)) return postProcess(pieces.map((p) => p.text).join(""))
  const lines: string[] = []
  const verbatim: boolean[] = []
  let current = ""
  let currentVerbatim = false
  for (const piece of pieces) {
    const parts = piece.text.split("\n")
    for (const [i, part] of parts.entries()) {
      if (i > 0) {
        lines.push(current)
        verbatim.push(currentVerbatim)
        current = ""
        currentVerbatim = false
      }
      current += part
      // Lines inside a data piece are protected whole (blank ones too: they may be inside its code);
      // at its edges, only lines that hold some of its text.
      const interior = i > 0 && i < parts.length - 1
      if (piece.verbatim && (part !== "" || interior)) currentVerbatim = true
    }
  }
  lines.push(current)
  verbatim.push(currentVerbatim)
  return collapseBlanks(dropEmpty(classify(lines, verbatim))).join("\n")
}
