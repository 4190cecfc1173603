import { mergeCount, type RankTable } from "./bpe-merge.js"

/**
 * Exact token counting in O(n log n) for every text. gpt-tokenizer splits text into pre-token pieces with a
 * regex and merges each piece with a loop that costs O(m²) for a piece of m bytes, so one long piece (a line
 * of 300,000 dashes, a megabyte of one letter or of '中') takes minutes. Here:
 *
 * 1. A sublinear check decides whether the text can hold a piece longer than `maxPiece` code units. A piece is
 *    at most one leading character, then a body of letters and marks, or of whitespace, or of other
 *    non-digit characters plus CR/LF, then at most a 3-character contraction; so a long piece implies a
 *    run of at least `maxPiece − 5` code units of one of those three kinds. Without such a run the text
 *    goes to gpt-tokenizer unchanged (all normal text: the count is the same call as before).
 * 2. Otherwise the text is split with the encoding's own piece regex. Runs of ordinary pieces are counted
 *    by gpt-tokenizer in segments cut only at piece boundaries preceded by a non-whitespace character
 *    (the regex has no look-behind, and its only look-aheads, `(?!\S)` and `$`, follow whitespace, so each
 *    segment splits into the same pieces alone as in the text); the few whitespace-ending pieces before a
 *    long piece are counted one by one (a piece alone is matched whole). Each long piece is counted by
 *    `mergeCount`, which makes the same merges as gpt-tokenizer in O(m log m).
 * The count is therefore the exact count for every text; the tests compare it with gpt-tokenizer's.
 */

/** What counting with long pieces needs from one encoding. */
export interface LongPieceEncoding {
  /** gpt-tokenizer's exact count (quadratic in the longest piece). */
  exact: (text: string) => number
  /** The encoding's pre-token regex (global, unicode). */
  split: RegExp
  /** The encoding's rank table, built on first use. */
  table: () => RankTable
  /** Pieces longer than this many UTF-16 code units are merged by `mergeCount` (at least 128). */
  maxPiece: number
}

/** Default bound on the piece length left to gpt-tokenizer (its cost per piece grows with the square). */
export const MAX_PIECE = 256

/** Exact token count of `text` in O(n log n): long pieces bypass gpt-tokenizer's quadratic merge loop. */
export function countWithLongPieces(text: string, encoding: LongPieceEncoding): number {
  if (!mayHoldLongPiece(text, encoding.maxPiece - 5)) return encoding.exact(text)
  const utf8 = new TextEncoder()
  let total = 0
  /** Start of the segment not counted yet. */
  let from = 0
  /** End of the last piece ending in non-whitespace (a safe place to cut), at or after `from`. */
  let safe = 0
  /** Pieces after `safe`, each ending in whitespace. */
  let tail: string[] = []
  for (const match of text.matchAll(new RegExp(encoding.split.source, encoding.split.flags))) {
    const piece = match[0]
    const start = match.index
    const end = start + piece.length
    if (piece.length > encoding.maxPiece) {
      if (safe > from) total += encoding.exact(text.slice(from, safe))
      for (const p of tail) total += encoding.exact(p)
      // Longer than any token (128 bytes at most), so never a single-token piece: merge it.
      total += mergeCount(utf8.encode(piece), encoding.table())
      from = end
      safe = end
      tail = []
    } else if (isSpace(piece.charCodeAt(piece.length - 1))) tail.push(piece)
    else {
      safe = end
      tail = []
    }
  }
  if (from < text.length) total += encoding.exact(text.slice(from))
  return total
}

/** Bits of a character class: letter or mark, whitespace, other (neither digit, letter nor whitespace). */
const LETTER = 1
const SPACE = 2
const OTHER = 4

/** Classes of BMP characters, filled on first sight (0 = not yet classified). */
const bmp = new Uint8Array(65536)

function classOf(code: number): number {
  if (code < 0x10000) {
    const hit = bmp[code]!
    if (hit !== 0) return hit
    const c = classify(String.fromCharCode(code))
    bmp[code] = c
    return c
  }
  return classify(String.fromCodePoint(code))
}

/** 8 marks "digit" (no run class); CR and LF count as whitespace and as the tail of an other-run. */
function classify(ch: string): number {
  if (ch === "\r" || ch === "\n") return SPACE | OTHER
  if (/^\s$/u.test(ch)) return SPACE
  if (/^\p{N}$/u.test(ch)) return 8
  const letter = /^[\p{L}\p{M}]$/u.test(ch)
  // Marks are neither letters nor digits, so they also continue an other-run.
  if (letter) return /^\p{M}$/u.test(ch) ? LETTER | OTHER : LETTER
  // Lone surrogates and unassigned code points fall here: not letters, digits or whitespace.
  return OTHER
}

function isSpace(code: number): boolean {
  return (classOf(code) & SPACE) !== 0
}

/**
 * Whether `text` has a run of at least `run` code units of letters, of whitespace or of other characters.
 * Sublinear: a run of at least `run` code units covers a position `k·run + run − 1`, so only the characters
 * at those positions are classified, and the run through each is measured by walking left and right (at
 * most `run` code units each way, so never more than about three looks per code unit).
 */
export function mayHoldLongPiece(text: string, run: number): boolean {
  const n = text.length
  const r = Math.ceil(run)
  if (r <= 0) return n > 0
  if (n <= r) return false
  for (let p = r - 1; p < n; p += r) {
    // The character covering p: a low surrogate after a high one is the second half of a pair.
    let start = p
    const unit = text.charCodeAt(p)
    if (isLow(unit) && p > 0 && isHigh(text.charCodeAt(p - 1))) start = p - 1
    const code = text.codePointAt(start)!
    const end = start + (code > 0xffff ? 2 : 1)
    const c = code < 0x10000 && bmp[code] !== 0 ? bmp[code]! : classOf(code)
    for (const bit of RUN_BITS) {
      if ((c & bit) === 0) continue
      const left = r - (end - start)
      const before = runBefore(text, start, bit, left)
      if (end - start + before + runAfter(text, end, bit, left - before) >= r) return true
    }
  }
  return false
}

const RUN_BITS = [LETTER, SPACE, OTHER] as const

const isHigh = (unit: number): boolean => unit >= 0xd800 && unit <= 0xdbff
const isLow = (unit: number): boolean => unit >= 0xdc00 && unit <= 0xdfff

/** Code units of the characters of class `bit` just before `at`, counted up to at least `limit`. */
function runBefore(text: string, at: number, bit: number, limit: number): number {
  let i = at
  while (at - i < limit && i > 0) {
    const unit = text.charCodeAt(i - 1)
    const pair = isLow(unit) && i > 1 && isHigh(text.charCodeAt(i - 2))
    const code = pair ? text.codePointAt(i - 2)! : unit
    if ((classOf(code) & bit) === 0) break
    i -= pair ? 2 : 1
  }
  return at - i
}

/** Code units of the characters of class `bit` from `at` on, counted up to at least `limit`. */
function runAfter(text: string, at: number, bit: number, limit: number): number {
  let i = at
  while (i - at < limit && i < text.length) {
    const unit = text.charCodeAt(i)
    const pair = isHigh(unit) && i + 1 < text.length && isLow(text.charCodeAt(i + 1))
    const code = pair ? text.codePointAt(i)! : unit
    if ((classOf(code) & bit) === 0) break
    i += pair ? 2 : 1
  }
  return i - at
}
