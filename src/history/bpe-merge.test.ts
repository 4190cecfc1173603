import fc from "fast-check"
import cl100kRanks from "gpt-tokenizer/bpeRanks/cl100k_base"
import o200kRanks from "gpt-tokenizer/bpeRanks/o200k_base"
import { encode as encodeCl100k } from "gpt-tokenizer/encoding/cl100k_base"
import { encode as encodeO200k } from "gpt-tokenizer/encoding/o200k_base"
import { beforeAll, describe, expect, it } from "vitest"
import { mergeCount, RankTable } from "./bpe-merge.js"

const plain = { disallowedSpecial: new Set<string>() }
const utf8 = new TextEncoder()
let o200k: RankTable
let cl100k: RankTable
beforeAll(() => {
  o200k = RankTable.from(o200kRanks)
  cl100k = RankTable.from(cl100kRanks)
})

/** Characters that make single long pieces: punctuation, letters, whitespace, multi-byte, a byte-order mark. */
const RUN_CHARS = ["-", "=", "*", "a", "Z", " ", "\n", "é", "中", "😀", "\uFEFF", "ж"]
/** A piece the pre-tokenizer keeps whole: a run of one character, or a word of letters without spaces. */
const piece = fc.oneof(
  fc.tuple(fc.constantFrom(...RUN_CHARS), fc.integer({ min: 1, max: 1000 })).map(([ch, n]) => ch.repeat(n)),
  fc
    .array(fc.constantFrom(..."abcdefghijklmnopqrstuvwxyzé中ж"), { minLength: 1, maxLength: 900 })
    .map((chars) => chars.join("")),
  fc
    .array(fc.constantFrom("\uFEFF", "using", "namespace", "//", "#", "\n"), { minLength: 1, maxLength: 200 })
    .map((parts) => parts.join("")),
)

describe("mergeCount", () => {
  it("makes as many tokens as gpt-tokenizer's merge loop, for o200k and cl100k", () => {
    fc.assert(
      fc.property(piece, (text) => {
        const bytes = utf8.encode(text)
        // A whole-token piece is looked up before merging by the caller; compare only merged pieces.
        fc.pre(bytes.length > 128)
        expect(mergeCount(bytes, o200k)).toBe(encodeO200k(text, plain).length)
        expect(mergeCount(bytes, cl100k)).toBe(encodeCl100k(text, plain).length)
      }),
      { numRuns: 40 },
    )
  })

  it("mirrors gpt-tokenizer's lookup of byte strings that start with a byte-order mark", () => {
    for (const text of ["\uFEFFusing".repeat(40), "\uFEFF".repeat(200), `\uFEFF\n${"\uFEFF//".repeat(60)}`]) {
      expect(mergeCount(utf8.encode(text), o200k)).toBe(encodeO200k(text, plain).length)
      expect(mergeCount(utf8.encode(text), cl100k)).toBe(encodeCl100k(text, plain).length)
    }
  })

  it("counts empty and one-byte inputs as that many tokens", () => {
    expect(mergeCount(new Uint8Array(0), o200k)).toBe(0)
    expect(mergeCount(utf8.encode("-"), o200k)).toBe(1)
  })
})
