import { WeightedMap } from "../bounded-map.js"
import { mergeCount, RankTable } from "./bpe-merge.js"
import {
  ASCII,
  cl100kPieceEnd,
  LOWER,
  o200kPieceEnd,
  type PieceEnd,
  regexPieceEnd,
  UPPER,
  WORD_PREFIX,
} from "./pieces.js"

/**
 * The boundary of promptline's own token counting, which stands in for gpt-tokenizer's `countTokens` (tokens.ts
 * imports this module alone; `pieces.ts` and `bpe-merge.ts` are its parts, each tested against gpt-tokenizer).
 * Why: `npm run bench -- tokens` (bench/results.md) counts normal agent-history text 2.3x as fast as
 * gpt-tokenizer (11.6 against 27.1 ms per MB, the same counts), and one long piece (40,000 dashes, letters or
 * '中') 74 to 169 times as fast, where gpt-tokenizer's merge grows with the square of the piece.
 *
 * Exact token counting, piece by piece. gpt-tokenizer cuts a text into pre-token pieces with the encoding's
 * regex and counts each piece on its own (one token when the piece is a token, else the tokens its bytes
 * merge into), so the count of a text is the sum of the counts of its pieces. Here:
 *
 * - The pieces come from the encoding's scanner (`pieces.ts`), which answers ASCII text without the regex;
 *   where it cannot tell, the regex gives that one piece.
 * - A short piece's count is remembered (identifiers, keywords, indentation and punctuation recur all
 *   through code and prose), so most pieces cost one lookup in a table, without a string made for them. A
 *   new piece is counted by gpt-tokenizer.
 * - A piece longer than `maxPiece` code units (a line of 300,000 dashes, a megabyte of one letter) is never
 *   a token; gpt-tokenizer's merge loop is quadratic in its length, so it is merged by `mergeCount`, which
 *   makes the same merges in O(m log m).
 * The count is therefore gpt-tokenizer's count for every text; the tests compare the two.
 */

/** What counting by pieces needs from one encoding. */
export interface PieceEncoding {
  /** gpt-tokenizer's exact count of a text (quadratic in its longest piece). */
  exact: (text: string) => number
  /** The encoding's scanner of pieces. */
  pieceEnd: PieceEnd
  /** The encoding's pre-token regex. */
  split: RegExp
  /** The encoding's rank table, built on first use. */
  table: () => RankTable
  /** Pieces longer than this many UTF-16 code units are merged by `mergeCount`. */
  maxPiece: number
  /**
   * True for o200k: an ASCII word piece is an optional prefix (not CR, LF, a letter or a digit), capitals,
   * then small letters, so it can be found and hashed in one pass (up to a quote or a character outside ASCII).
   */
  asciiWords?: boolean
}

/** Default bound on the piece length left to gpt-tokenizer (its cost per piece grows with the square). */
export const MAX_PIECE = 256

/** What `encodingCounter` needs of gpt-tokenizer for one encoding. */
export interface EncodingSource {
  /** gpt-tokenizer's exact count of a text. */
  exact: (text: string) => number
  /** The encoding's pre-token regex. */
  split: RegExp
  /** The encoding's rank list (index = rank), read the first time a long piece is met. */
  ranks: () => readonly (string | readonly number[])[]
}

/** An exact counter of one encoding: pieces by our scanner, counted once each, long pieces by our merge. */
export function encodingCounter(encoding: "o200k" | "cl100k", source: EncodingSource): (text: string) => number {
  let table: RankTable | undefined
  const counter = new PieceCounter({
    exact: source.exact,
    pieceEnd: encoding === "o200k" ? o200kPieceEnd : cl100kPieceEnd,
    split: source.split,
    table: () => (table ??= RankTable.from(source.ranks())),
    maxPiece: MAX_PIECE,
    // For o200k an ASCII word piece is found and hashed in one pass.
    asciiWords: encoding === "o200k",
  })
  return (text) => counter.count(text)
}

/** Pieces up to this length have their counts remembered; longer ones (rare) are counted each time. */
const KNOWN_PIECE_LENGTH = 32

/** Texts at least this long are counted in chunks cut after a line end, each chunk's count remembered. */
const CHUNKED_TEXT = 4096
/** A chunk is at least this long, and ends at a safe line end chosen by the line's content (`chunkEnd`). */
const MIN_CHUNK = 256
/** ... or at the first safe line end once it is this long. */
const FULL_CHUNK = 2048
/** Longer chunks (a text without a safe line end for that long) are counted without being remembered. */
const MAX_KNOWN_CHUNK = 64 * 1024
/** Most code units of chunks remembered (copies); the oldest chunks are forgotten first. */
const MAX_CHUNK_UNITS = 4 * 1024 * 1024

/** Slots of the table of remembered pieces (a power of two), and how many a lookup probes. */
const DEFAULT_SLOTS = 1 << 16
const PROBES = 4

/**
 * Counts texts of one encoding exactly. The counts of short pieces are remembered in a fixed table, found by
 * a hash of the piece's characters read in place: a piece met before costs no string and no allocation.
 */
export class PieceCounter {
  readonly #encoding: PieceEncoding
  /** The regex anchored at a piece boundary, for the pieces the scanner leaves to it. */
  readonly #sticky: RegExp
  /** Remembered pieces (copies, so no slice keeps a long text alive) and their counts, by slot; made on first use. */
  #pieces: (string | undefined)[] = []
  #counts = new Int32Array(0)
  readonly #mask: number
  /** Remembered chunks of long texts (copies) and their counts, weighed by their length. */
  readonly #chunks = new WeightedMap<string, number>(MAX_CHUNK_UNITS)

  /** `slots`: how many pieces can be remembered, rounded up to a power of two. */
  constructor(encoding: PieceEncoding, slots = DEFAULT_SLOTS) {
    this.#encoding = encoding
    this.#sticky = new RegExp(encoding.split.source, "uy")
    this.#mask = 2 ** Math.ceil(Math.log2(Math.max(PROBES, slots))) - 1
  }

  /**
   * The exact token count of `text`. A long text is counted chunk by chunk, each cut where no piece can cross
   * (`safeCut`), so its count is the sum of its chunks'; a chunk met before (a file read again after an
   * edit, a message whose old file read was replaced by a note) costs one lookup.
   */
  count(text: string): number {
    if (text.length < CHUNKED_TEXT) return this.#countPieces(text)
    let total = 0
    for (let start = 0; start < text.length; ) {
      const end = chunkEnd(text, start)
      total += this.#chunk(text.slice(start, end))
      start = end
    }
    return total
  }

  #chunk(chunk: string): number {
    if (chunk.length > MAX_KNOWN_CHUNK) return this.#countPieces(chunk)
    const known = this.#chunks.get(chunk)
    if (known !== undefined) return known
    const n = this.#countPieces(chunk)
    // Kept as a copy: a slice would keep the whole text alive.
    this.#chunks.set(` ${chunk}`.slice(1), n, chunk.length)
    return n
  }

  #countPieces(text: string): number {
    if (this.#pieces.length === 0) {
      this.#pieces = new Array<string | undefined>(this.#mask + 1).fill(undefined)
      this.#counts = new Int32Array(this.#mask + 1)
    }
    const pieceEnd = this.#encoding.pieceEnd
    const sticky = this.#sticky
    let total = 0
    let at = 0
    const words = this.#encoding.asciiWords === true
    const n = text.length
    while (at < n) {
      if (words) {
        // The commonest piece, an ASCII word with an optional prefix, is found and hashed in one pass.
        let i = at
        let c = text.charCodeAt(i)
        if (c < 128 && (ASCII[c]! & WORD_PREFIX) !== 0 && i + 1 < n) c = text.charCodeAt(++i)
        if (c < 128 && (ASCII[c]! & (UPPER | LOWER)) !== 0) {
          let hash = 0x811c9dc5
          for (let k = at; k < i; k++) hash = Math.imul(hash ^ text.charCodeAt(k), 0x01000193)
          while (c < 128 && (ASCII[c]! & UPPER) !== 0) {
            hash = Math.imul(hash ^ c, 0x01000193)
            c = ++i < n ? text.charCodeAt(i) : 32
          }
          while (c < 128 && (ASCII[c]! & LOWER) !== 0) {
            hash = Math.imul(hash ^ c, 0x01000193)
            c = ++i < n ? text.charCodeAt(i) : 32
          }
          // Past a quote (a contraction may follow) or a character outside ASCII the scanner decides.
          if (c < 128 && c !== 39) {
            const length = i - at
            total +=
              length > 1 && length <= KNOWN_PIECE_LENGTH ? this.#hashed(text, at, i, hash) : this.#piece(text, at, i)
            at = i
            continue
          }
        }
      }
      let end = pieceEnd(text, at)
      if (end < 0) end = regexPieceEnd(text, at, sticky)
      total += this.#piece(text, at, end)
      at = end
    }
    return total
  }

  #piece(text: string, start: number, end: number): number {
    const length = end - start
    // Every byte is a token, so a single ASCII character is one.
    if (length === 1 && text.charCodeAt(start) < 128) return 1
    if (length > KNOWN_PIECE_LENGTH) {
      const piece = text.slice(start, end)
      if (length <= this.#encoding.maxPiece) return this.#encoding.exact(piece)
      // Longer than any token (128 bytes at most), so never a single-token piece: merge it.
      return mergeCount(new TextEncoder().encode(piece), this.#encoding.table())
    }
    let hash = 0x811c9dc5
    for (let i = start; i < end; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193)
    return this.#hashed(text, start, end, hash)
  }

  /** The count of a piece of at most KNOWN_PIECE_LENGTH code units whose hash is known, from the table. */
  #hashed(text: string, start: number, end: number, hash: number): number {
    const length = end - start
    const home = (hash ^ (hash >>> 16)) & this.#mask
    let free = -1
    for (let probe = 0; probe < PROBES; probe++) {
      const slot = (home + probe) & this.#mask
      const known = this.#pieces[slot]
      if (known === undefined) {
        free = slot
        break
      }
      if (known.length === length && same(known, text, start)) return this.#counts[slot]!
    }
    const piece = text.slice(start, end)
    const n = this.#encoding.exact(piece)
    // A full neighbourhood gives up its first slot: the table never grows.
    const slot = free >= 0 ? free : home
    this.#pieces[slot] = ` ${piece}`.slice(1)
    this.#counts[slot] = n
    return n
  }
}

/** Whether `text` holds `piece` at `start` (compared in place: no string is made). */
function same(piece: string, text: string, start: number): boolean {
  for (let i = 0; i < piece.length; i++) if (piece.charCodeAt(i) !== text.charCodeAt(start + i)) return false
  return true
}

/**
 * Where the chunk that starts at `start` ends: at a safe line end (`safeCut`) at least MIN_CHUNK code units
 * on whose closing characters a hash lands on one value in four, or at the first safe line end past
 * FULL_CHUNK. The ends depend on the text around them, not on where the text starts, so a text edited in one
 * place (a file read again after a change, a message with one copy replaced by a note) is cut as before
 * everywhere but around the change, and its other chunks are counted already.
 */
function chunkEnd(text: string, start: number): number {
  let cut = safeCut(text, start + MIN_CHUNK)
  while (cut < text.length && cut - start < FULL_CHUNK) {
    let hash = 0x811c9dc5
    for (let i = Math.max(start, cut - 16); i < cut; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193)
    if (((hash ^ (hash >>> 13)) & 3) === 0) return cut
    cut = safeCut(text, cut + 1)
  }
  return cut
}

/**
 * The end of the first line at or after `from` whose line end no piece can cross, or the end of the text. After
 * a line feed followed by spaces or tabs (or none) and then a printable ASCII character (other than '/' right
 * after the line feed), both encodings start a new piece at the line feed's end: the pieces that can hold a
 * line feed are a whitespace run (cut after its last CR or LF; here no CR or LF follows before the printable
 * character) and punctuation with trailing line ends (CR, LF, and '/' for o200k). The indentation then splits
 * the same way alone as after the line feed. Neither encoding looks behind, so the text after the cut splits
 * into the same pieces alone, and the text before it does too.
 */
export function safeCut(text: string, from: number): number {
  const n = text.length
  for (let i = text.indexOf("\n", from - 1); i >= 0 && i + 1 < n; i = text.indexOf("\n", i + 1)) {
    let j = i + 1
    let next = text.charCodeAt(j)
    while (next === 32 || next === 9) next = text.charCodeAt(++j)
    if (next > 32 && next < 127 && (next !== 47 || j > i + 1)) return i + 1
  }
  return n
}
