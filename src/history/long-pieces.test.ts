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

  it("is false for ordinary prose and code", () => {
    const prose = "The context manager fits a conversation into a budget.\n  if (x) { return y }\n".repeat(200)
    expect(mayHoldLongPiece(prose, 251)).toBe(false)
  })
})
