import type { PatchChunk } from "./patch-parse.js"

/**
 * Applies the hunks of one "Update File" to a file's text. Hunks are placed in order, each after the
 * previous one; lines are compared exactly, then ignoring trailing spaces, then ignoring surrounding
 * spaces, then with typographic punctuation folded to ASCII. Pure.
 */

type Compare = (a: string, b: string) => boolean

const PUNCTUATION: Record<string, string> = {
  "\u2010": "-",
  "\u2011": "-",
  "\u2012": "-",
  "\u2013": "-",
  "\u2014": "-",
  "\u2212": "-",
  "\u2018": "'",
  "\u2019": "'",
  "\u201A": "'",
  "\u201B": "'",
  "\u201C": '"',
  "\u201D": '"',
  "\u201E": '"',
  "\u201F": '"',
  "\u00A0": " ",
  "\u202F": " ",
}

const fold = (s: string) =>
  s.trim().replace(/[\u2010-\u2014\u2212\u2018-\u201F\u00A0\u202F]/g, (c) => PUNCTUATION[c] ?? c)

const COMPARISONS: Compare[] = [
  (a, b) => a === b,
  (a, b) => a.trimEnd() === b.trimEnd(),
  (a, b) => a.trim() === b.trim(),
  (a, b) => fold(a) === fold(b),
]

function matchesAt(lines: string[], at: number, wanted: string[], same: Compare): boolean {
  if (at < 0 || at + wanted.length > lines.length) return false
  for (let j = 0; j < wanted.length; j++) if (!same(lines[at + j]!, wanted[j]!)) return false
  return true
}

/** First index ≥ from where `wanted` matches, trying each comparison in turn; atEnd tries the file's end first. */
function find(lines: string[], wanted: string[], from: number, atEnd: boolean): number {
  for (const same of COMPARISONS) {
    if (atEnd && matchesAt(lines, lines.length - wanted.length, wanted, same)) return lines.length - wanted.length
    for (let at = from; at + wanted.length <= lines.length; at++) if (matchesAt(lines, at, wanted, same)) return at
  }
  return -1
}

/** The new text of a file after its hunks, or which hunk failed and why. */
export function applyChunks(text: string, chunks: PatchChunk[]): { text: string } | { error: string } {
  const lines = text === "" ? [] : text.split("\n")
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop()
  let cursor = 0
  for (const [n, chunk] of chunks.entries()) {
    const label = `hunk ${n + 1}`
    for (const anchor of chunk.anchors) {
      const at = find(lines, [anchor], cursor, false)
      if (at === -1) return { error: `${label}: the context line "@@ ${anchor}" is not in the file` }
      cursor = at + 1
    }
    let old = chunk.old
    let replacement = chunk.new
    if (old.length === 0) {
      const at = chunk.anchors.length > 0 && !chunk.atEnd ? cursor : lines.length
      lines.splice(at, 0, ...replacement)
      cursor = at + replacement.length
      continue
    }
    let at = find(lines, old, cursor, chunk.atEnd)
    if (at === -1 && old[old.length - 1] === "") {
      // A trailing blank context line that the file lacks (often at its end).
      old = old.slice(0, -1)
      if (replacement[replacement.length - 1] === "") replacement = replacement.slice(0, -1)
      at = find(lines, old, cursor, chunk.atEnd)
    }
    if (at === -1) at = find(lines, old, 0, chunk.atEnd)
    if (at === -1) {
      const first = old.find((l) => l.trim() !== "") ?? old[0] ?? ""
      return { error: `${label} (starting "${first.trim().slice(0, 80)}") does not match the file's lines` }
    }
    lines.splice(at, old.length, ...replacement)
    cursor = at + replacement.length
  }
  return { text: lines.length ? `${lines.join("\n")}\n` : "" }
}
