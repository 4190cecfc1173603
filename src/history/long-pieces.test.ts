import fc from "fast-check"
import cl100kRanks from "gpt-tokenizer/bpeRanks/cl100k_base"
import o200kRanks from "gpt-tokenizer/bpeRanks/o200k_base"
import { encode as encodeCl100k } from "gpt-tokenizer/encoding/cl100k_base"
import { encode as encodeO200k } from "gpt-tokenizer/encoding/o200k_base"
import { CL100K_TOKEN_SPLIT_REGEX, O200K_TOKEN_SPLIT_REGEX } from "gpt-tokenizer/encodingParams/constants"
import { describe, expect, it } from "vitest"
import { RankTable } from "./bpe-merge.js"
import { countWithLongPieces, type LongPieceEncoding, mayHoldLongPiece } from "./long-pieces.js"

const plain = { disallowedSpecial: new Set<string>() }
const exactO200k = (text: string) => encodeO200k(text, plain).length
const exactCl100k = (text: string) => encodeCl100k(text, plain).length

// The smallest allowed bound, so that long pieces appear at sizes gpt-tokenizer still counts quickly.
let o200kTable: RankTable | undefined
let cl100kTable: RankTable | undefined
const o200k: LongPieceEncoding = {
  exact: exactO200k,
  split: O200K_TOKEN_SPLIT_REGEX,
  table: () => (o200kTable ??= RankTable.from(o200kRanks)),
  maxPiece: 128,
}
const cl100k: LongPieceEncoding = {
  exact: exactCl100k,
  split: CL100K_TOKEN_SPLIT_REGEX,
  table: () => (cl100kTable ??= RankTable.from(cl100kRanks)),
  maxPiece: 128,
}

const RUN_CHARS = ["-", "=", "/", "a", "A", "ǅ", "0", " ", "\n", "\r\n", "\t", "é", "中", "😀", "\uFEFF", "\u0301", "'"]
/** Adversarial parts: long runs of one character, long words without spaces, and arbitrary short text. */
const part = fc.oneof(
  fc.tuple(fc.constantFrom(...RUN_CHARS), fc.integer({ min: 1, max: 700 })).map(([ch, n]) => ch.repeat(n)),
  fc.array(fc.constantFrom(..."abcdefghijXYZéж中'"), { minLength: 100, maxLength: 600 }).map((chars) => chars.join("")),
  fc.array(fc.constantFrom("-\n", "/\n", "a\n", " \n ", "x "), { maxLength: 120 }).map((parts) => parts.join("")),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({ maxLength: 40 }),
)
const text = fc
  .tuple(fc.array(part, { minLength: 1, maxLength: 5 }), fc.constantFrom("", " ", "\n", " \n ", "x", "'s"))
  .map(([parts, glue]) => parts.join(glue))

describe("countWithLongPieces", () => {
  it("equals gpt-tokenizer's count for adversarial text, o200k and cl100k, and is deterministic", () => {
    fc.assert(
      fc.property(text, (t) => {
        const n = countWithLongPieces(t, o200k)
        expect(n).toBe(exactO200k(t))
        expect(countWithLongPieces(t, o200k)).toBe(n)
        expect(countWithLongPieces(t, cl100k)).toBe(exactCl100k(t))
      }),
      { numRuns: 80 },
    )
  })

  it("cuts only where the pieces stay the same: whitespace before and after a long piece", () => {
    const cases = [
      `a \n ${"-".repeat(300)}`,
      `a \n  ${"=".repeat(300)}\n\n`,
      `x${" ".repeat(400)}`,
      `${" ".repeat(400)}x`,
      `-\n-\n${"/".repeat(300)} \n y`,
      `it's ${"s".repeat(300)}'ll do`,
    ]
    for (const t of cases) {
      expect(countWithLongPieces(t, o200k)).toBe(exactO200k(t))
      expect(countWithLongPieces(t, cl100k)).toBe(exactCl100k(t))
    }
  })
})

describe("mayHoldLongPiece", () => {
  it("is true whenever a pre-token piece is longer than the bound (never misses one)", () => {
    fc.assert(
      fc.property(text, (t) => {
        for (const split of [O200K_TOKEN_SPLIT_REGEX, CL100K_TOKEN_SPLIT_REGEX]) {
          const longest = Math.max(0, ...[...t.matchAll(new RegExp(split.source, split.flags))].map((m) => m[0].length))
          if (longest > 128) expect(mayHoldLongPiece(t, 128 - 5)).toBe(true)
        }
      }),
      { numRuns: 150 },
    )
  })

  it("answers as the full left-to-right scan for every text, run length and alphabet", () => {
    // Runs of one class (letters, marks, spaces, CR/LF, punctuation), digits that break every run, astral
    // characters (two code units) and lone surrogates, in lengths around the bound.
    const unit = fc.constantFrom(
      ..."aZé中",
      "\u0301",
      "\u0300",
      " ",
      "\t",
      "\u3000",
      "\r",
      "\n",
      "-",
      "/",
      "'",
      ".",
      "0",
      "7",
      "٣",
      "😀",
      "𝐀",
      "𝟘",
      "\ud800",
      "\udc00",
      "\udbff",
    )
    const runOf = fc.tuple(unit, fc.integer({ min: 1, max: 14 })).map(([u, k]) => u.repeat(k))
    const textAround = fc.array(fc.oneof(unit, runOf), { maxLength: 24 }).map((parts) => parts.join(""))
    fc.assert(
      fc.property(textAround, fc.integer({ min: -1, max: 16 }), (t, run) => {
        expect(mayHoldLongPiece(t, run)).toBe(fullScan(t, run))
      }),
      { numRuns: 3000 },
    )
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            unit,
            runOf.map((r) => r.repeat(12)),
          ),
          { maxLength: 40 },
        ),
        (parts) => {
          const t = parts.join("")
          expect(mayHoldLongPiece(t, 123)).toBe(fullScan(t, 123))
        },
      ),
      { numRuns: 500 },
    )
  })

  it("finds a run that starts or ends at either end of the text or straddles a surrogate pair", () => {
    for (const t of [
      "a".repeat(10),
      `${"😀".repeat(5)}0`,
      `0${"😀".repeat(5)}`,
      `0${" ".repeat(9)}0`,
      `${"\r\n".repeat(5)}`,
    ]) {
      for (let run = 1; run <= 12; run++) expect(mayHoldLongPiece(t, run)).toBe(fullScan(t, run))
    }
  })

  it("is false for ordinary prose and code", () => {
    const prose = "The context manager fits a conversation into a budget.\n  if (x) { return y }\n".repeat(200)
    expect(mayHoldLongPiece(prose, 251)).toBe(false)
  })
})

/** The reference: one pass from left to right, classifying every character with the regexes themselves. */
function fullScan(text: string, run: number): boolean {
  if (text.length <= run) return false
  const classOf = (ch: string): number => {
    if (ch === "\r" || ch === "\n") return 2 | 4
    if (/^\s$/u.test(ch)) return 2
    if (/^\p{N}$/u.test(ch)) return 0
    if (/^\p{M}$/u.test(ch)) return 1 | 4
    if (/^\p{L}$/u.test(ch)) return 1
    return 4
  }
  let letters = 0
  let spaces = 0
  let others = 0
  for (let i = 0; i < text.length; i++) {
    let ch = text[i]!
    const high = text.charCodeAt(i)
    const low = text.charCodeAt(i + 1)
    if (high >= 0xd800 && high <= 0xdbff && low >= 0xdc00 && low <= 0xdfff) {
      ch = text.slice(i, i + 2)
      i++
    }
    const c = classOf(ch)
    letters = c & 1 ? letters + ch.length : 0
    spaces = c & 2 ? spaces + ch.length : 0
    others = c & 4 ? others + ch.length : 0
    if (letters >= run || spaces >= run || others >= run) return true
  }
  return false
}
