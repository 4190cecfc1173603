/**
 * The o200k and cl100k pre-token splits without the regex, for ASCII text. gpt-tokenizer cuts text into
 * pieces with the encoding's regex (Unicode property classes, seven or eight alternatives) before it merges
 * bytes; on source code and English that regex is half of the counting time. `o200kPieceEnd` and
 * `cl100kPieceEnd` find the same piece with a table lookup per character, and say "ask the regex" (−1) as
 * soon as they would have to classify a character outside ASCII. The tests compare the pieces with the
 * regexes' on random text.
 *
 * o200k's regex, alternative by alternative, read for ASCII (`P`: a character that is neither a letter, a
 * digit nor whitespace; `W`: whitespace; the optional prefix is any character but CR, LF, a letter or a digit):
 * 1. prefix? [A-Z]* [a-z]+ contraction?
 * 2. prefix? [A-Z]+ [a-z]* contraction?
 * 3. [0-9]{1,3}
 * 4. " "? P+ [\r\n/]*
 * 5. W* [\r\n]+ : a whitespace run up to and including its last CR or LF
 * 6. W+ (?!\S) : a whitespace run at the end of the text, or the run less its last character
 * 7. W+
 * cl100k's: a contraction first; then prefix? [A-Za-z]+; digits; " "? P+ [\r\n]*; a whitespace run that
 * ends the text; then 5, 6 and a single whitespace character. The first alternative that matches wins, so
 * the order of the checks below is the regex's order.
 */

export const UPPER = 1
export const LOWER = 2
const DIGIT = 4
const SPACE = 8
/** CR or LF (also SPACE). */
const NEWLINE = 16
/** Neither a letter, a digit nor whitespace. */
const OTHER = 32
/** What may come before an o200k word in its piece: anything but CR, LF, a letter or a digit. */
export const WORD_PREFIX = 64

/** Class bits of each ASCII character. */
export const ASCII = new Uint8Array(128)
for (let c = 0; c < 128; c++) {
  if (c >= 65 && c <= 90) ASCII[c] = UPPER
  else if (c >= 97 && c <= 122) ASCII[c] = LOWER
  else if (c >= 48 && c <= 57) ASCII[c] = DIGIT
  else if (c === 10 || c === 13) ASCII[c] = SPACE | NEWLINE
  else if (c === 9 || c === 11 || c === 12 || c === 32) ASCII[c] = SPACE | WORD_PREFIX
  else ASCII[c] = OTHER | WORD_PREFIX
}

/** The class of the character at `at`: 0 past the end, −1 outside ASCII (the regex must decide). */
function classAt(text: string, at: number): number {
  if (at >= text.length) return 0
  const code = text.charCodeAt(at)
  return code < 128 ? ASCII[code]! : -1
}

/** The end of the run of characters with one of `bits` from `at`, or −1 if the run stops at a non-ASCII one. */
function runEnd(text: string, at: number, bits: number): number {
  const n = text.length
  let i = at
  while (i < n) {
    const code = text.charCodeAt(i)
    if (code >= 128) return -1
    if ((ASCII[code]! & bits) === 0) return i
    i++
  }
  return i
}

/** The end of an optional contraction ('s 't 'd 'm 'll 've 're, either case) at `at`. */
function contractionEnd(text: string, at: number): number {
  if (text.charCodeAt(at) !== 39) return at
  const a = text.charCodeAt(at + 1) | 32
  if (a === 115 || a === 116 || a === 100 || a === 109) return at + 2
  const b = text.charCodeAt(at + 2) | 32
  if ((a === 108 && b === 108) || (a === 118 && b === 101) || (a === 114 && b === 101)) return at + 3
  return at
}

/** Alternatives 1 and 2 from `from` (just past the prefix, if any): the end, 0 if neither matches, −1: ask. */
function wordEnd(text: string, from: number): number {
  const upper = runEnd(text, from, UPPER)
  if (upper < 0) return -1
  const lower = runEnd(text, upper, LOWER)
  if (lower < 0) return -1
  // With ASCII letters only, [A-Z]*[a-z]+ and [A-Z]+[a-z]* both take the whole upper then lower run.
  return lower > from ? contractionEnd(text, lower) : 0
}

/** The end of the o200k piece that starts at `start` (a piece boundary), or −1 when that needs the regex. */
export function o200kPieceEnd(text: string, start: number): number {
  const c = classAt(text, start)
  if (c < 0) return -1
  if (c & (UPPER | LOWER)) return wordEnd(text, start)
  if (c & DIGIT) return digitsEnd(text, start)
  if ((c & NEWLINE) === 0) {
    // A prefix: space, tab or punctuation before a word.
    const word = wordEnd(text, start + 1)
    if (word !== 0) return word
  }
  const other = otherEnd(text, start, c, true)
  return other !== 0 ? other : spaceEnd(text, start, false)
}

/** The end of the cl100k piece that starts at `start` (a piece boundary), or −1 when that needs the regex. */
export function cl100kPieceEnd(text: string, start: number): number {
  const c = classAt(text, start)
  if (c < 0) return -1
  const contraction = contractionEnd(text, start)
  if (contraction !== start) return contraction
  if (c & (UPPER | LOWER)) return runEnd(text, start, UPPER | LOWER)
  if (c & DIGIT) return digitsEnd(text, start)
  if ((c & NEWLINE) === 0) {
    const word = runEnd(text, start + 1, UPPER | LOWER)
    if (word !== start + 1) return word
  }
  const other = otherEnd(text, start, c, false)
  return other !== 0 ? other : spaceEnd(text, start, true)
}

/** \p{N}{1,3}. */
function digitsEnd(text: string, start: number): number {
  const end = runEnd(text, start, DIGIT)
  return end < 0 ? -1 : Math.min(end, start + 3)
}

/** " "? P+ then [\r\n/]* (o200k) or [\r\n]* (cl100k): the end, 0 if it does not match, −1: ask. */
function otherEnd(text: string, start: number, c: number, slash: boolean): number {
  let from = start
  if (text.charCodeAt(start) === 32) from++
  else if ((c & OTHER) === 0) return 0
  const end = runEnd(text, from, OTHER)
  if (end < 0) return -1
  if (end === from) return 0
  let i = end
  for (let k = text.charCodeAt(i); k === 10 || k === 13 || (slash && k === 47); k = text.charCodeAt(++i));
  return i
}

/**
 * A whitespace piece. cl100k first takes a run that ends the text whole (\s+$); then both take the run up
 * to its last CR or LF; then the run less its last character when a non-space follows (\s+(?!\S)); then
 * the rest of the run (o200k) or one character (cl100k), which is the same piece since that run is one long.
 */
function spaceEnd(text: string, start: number, wholeAtEnd: boolean): number {
  const end = runEnd(text, start, SPACE)
  if (end < 0) return -1
  if (wholeAtEnd && end === text.length) return end
  for (let i = end - 1; i >= start; i--) if (text.charCodeAt(i) === 10 || text.charCodeAt(i) === 13) return i + 1
  if (end === text.length || end - start === 1) return end
  return end - 1
}

/** A scanner of one encoding's pieces: the end of the piece at a boundary, or −1. */
export type PieceEnd = (text: string, start: number) => number

/** The end of the piece at `at` by the encoding's regex with the sticky flag (`uy`). */
export function regexPieceEnd(text: string, at: number, sticky: RegExp): number {
  sticky.lastIndex = at
  const match = sticky.exec(text)
  // Every character starts some alternative, so the regex matches at each piece boundary.
  return match ? at + match[0].length : text.length
}
