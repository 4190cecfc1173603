import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import fc from "fast-check"
import cl100kRanks from "gpt-tokenizer/bpeRanks/cl100k_base"
import o200kRanks from "gpt-tokenizer/bpeRanks/o200k_base"
import { encode as encodeCl100k } from "gpt-tokenizer/encoding/cl100k_base"
import { encode as encodeO200k } from "gpt-tokenizer/encoding/o200k_base"
import { CL100K_TOKEN_SPLIT_REGEX, O200K_TOKEN_SPLIT_REGEX } from "gpt-tokenizer/encodingParams/constants"
import { describe, expect, it } from "vitest"
import { RankTable } from "./bpe-merge.js"
import { PieceCounter, type PieceEncoding, safeCut } from "./piece-count.js"
import { cl100kPieceEnd, o200kPieceEnd } from "./pieces.js"

const plain = { disallowedSpecial: new Set<string>() }
const exactO200k = (text: string) => encodeO200k(text, plain).length
const exactCl100k = (text: string) => encodeCl100k(text, plain).length

/** One encoding for PieceCounter, with its rank table built on first use. */
function encoding(
  exact: (text: string) => number,
  pieceEnd: PieceEncoding["pieceEnd"],
  split: RegExp,
  ranks: readonly (string | readonly number[])[],
): PieceEncoding {
  let table: RankTable | undefined
  // The smallest allowed bound, so that long pieces appear at sizes gpt-tokenizer still counts quickly.
  return { exact, pieceEnd, split, table: () => (table ??= RankTable.from(ranks)), maxPiece: 128 }
}
const o200kEncoding = { ...encoding(exactO200k, o200kPieceEnd, O200K_TOKEN_SPLIT_REGEX, o200kRanks), asciiWords: true }
const cl100kEncoding = encoding(exactCl100k, cl100kPieceEnd, CL100K_TOKEN_SPLIT_REGEX, cl100kRanks)
// Small memories, so that forgetting pieces is exercised too.
const o200k = new PieceCounter(o200kEncoding, 64)
const cl100k = new PieceCounter(cl100kEncoding, 64)

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

describe("PieceCounter", () => {
  it("equals gpt-tokenizer's count for adversarial text, o200k and cl100k, and is deterministic", () => {
    fc.assert(
      fc.property(text, (t) => {
        const n = o200k.count(t)
        expect(n).toBe(exactO200k(t))
        expect(o200k.count(t)).toBe(n)
        expect(cl100k.count(t)).toBe(exactCl100k(t))
      }),
      { numRuns: 80 },
    )
  })

  it("counts word pieces found in one pass (asciiWords) as gpt-tokenizer does, at every boundary (property)", () => {
    // Words of capitals and small letters after every kind of prefix, ended by digits, quotes (contractions),
    // letters outside ASCII, marks, line ends and the end of the text; and the same text without the fast path.
    const plainO200k = new PieceCounter({ ...o200kEncoding, asciiWords: false }, 64)
    // A count made up per piece, so that the sum tells whether the pieces are the regex's, not just the total.
    const madeUp = (piece: string) =>
      piece.length === 1 && piece.charCodeAt(0) < 128
        ? 1
        : 1000 + [...piece].reduce((h, c) => (h * 31 + c.codePointAt(0)!) % 9973, 7)
    const byPieces = new PieceCounter({ ...o200kEncoding, exact: madeUp, maxPiece: 1000 }, 64)
    const regex = new RegExp(O200K_TOKEN_SPLIT_REGEX.source, "gu")
    const unit = fc.constantFrom(
      ..."aZbYq",
      "Ab",
      "HTTPServer",
      "fooBar",
      " ",
      "\t",
      "\v",
      ".",
      "'",
      "'s",
      "'LL",
      "\n",
      "\r",
      "7",
      "é",
      "ǅ",
      "\u0301",
      "中",
      "\u00a0",
      "-",
      "\u0000",
    )
    fc.assert(
      fc.property(fc.array(unit, { minLength: 1, maxLength: 30 }), (units) => {
        const t = units.join("")
        expect(o200k.count(t)).toBe(exactO200k(t))
        expect(plainO200k.count(t)).toBe(exactO200k(t))
        expect(byPieces.count(t)).toBe(Array.from(t.matchAll(regex), (m) => madeUp(m[0])).reduce((a, b) => a + b, 0))
      }),
      { numRuns: 3000 },
    )
  })

  it("counts long pieces with the whitespace around them as gpt-tokenizer does", () => {
    const cases = [
      `a \n ${"-".repeat(300)}`,
      `a \n  ${"=".repeat(300)}\n\n`,
      `x${" ".repeat(400)}`,
      `${" ".repeat(400)}x`,
      `-\n-\n${"/".repeat(300)} \n y`,
      `it's ${"s".repeat(300)}'ll do`,
    ]
    for (const t of cases) {
      expect(o200k.count(t)).toBe(exactO200k(t))
      expect(cl100k.count(t)).toBe(exactCl100k(t))
    }
  })

  it("counts real source and prose exactly, the second time from remembered pieces", () => {
    const dir = fileURLToPath(new URL(".", import.meta.url))
    const texts = readdirSync(dir)
      .filter((f) => f.endsWith(".ts"))
      .sort()
      .map((f) => readFileSync(join(dir, f), "utf8"))
    texts.push(readFileSync(fileURLToPath(new URL("../../docs/context-manager.md", import.meta.url)), "utf8"))
    const counter = new PieceCounter(o200kEncoding)
    for (let round = 0; round < 2; round++) {
      for (const t of texts) expect(counter.count(t)).toBe(exactO200k(t))
    }
  })

  it("counts a long text chunk by chunk: exact for any lines, and an edited text recounts only what changed", () => {
    const line = fc.oneof(
      fc.constantFrom(
        "const x = 1",
        "  return y",
        "// note",
        "/* a */",
        "\t- item",
        "'s",
        "",
        " ",
        "\r",
        "中文",
        "\u00a0x",
      ),
      fc.string({ maxLength: 30 }),
    )
    const longText = fc.array(line, { minLength: 1, maxLength: 40 }).map((lines) => {
      let text = lines.join("\n")
      while (text.length < 5000) text += `\n${lines.join("\n")}`
      return text
    })
    fc.assert(
      fc.property(longText, (t) => {
        expect(o200k.count(t)).toBe(exactO200k(t))
        expect(cl100k.count(t)).toBe(exactCl100k(t))
      }),
      { numRuns: 60 },
    )
    let scanned = 0
    const scanning = (text: string, start: number) => {
      scanned++
      return o200kPieceEnd(text, start)
    }
    const counting = new PieceCounter({ ...o200kEncoding, pieceEnd: scanning }, 4)
    const file = Array.from({ length: 400 }, (_, i) => `export const value${i} = compute(${i}) // line ${i}`).join("\n")
    expect(counting.count(file)).toBe(exactO200k(file))
    const first = scanned
    scanned = 0
    const edited = file.replace("compute(200)", "recompute(200, { fresh: true })")
    expect(counting.count(edited)).toBe(exactO200k(edited))
    expect(scanned).toBeLessThan(first / 10)
  })
})

describe("safeCut", () => {
  it("cuts only where both encodings end a piece", () => {
    const unit = fc.constantFrom("\n", "\r", " ", "\t", "/", "-", "a", "Z", "1", "'", "\u00a0", "中", "\u2028", ";")
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 80 }), fc.nat(80), (units, from) => {
        const text = units.join("")
        const cut = safeCut(text, from)
        expect(cut).toBeLessThanOrEqual(text.length)
        if (cut === text.length) return
        expect(cut).toBeGreaterThanOrEqual(Math.min(from, text.length))
        for (const split of [O200K_TOKEN_SPLIT_REGEX, CL100K_TOKEN_SPLIT_REGEX]) {
          const ends = [...text.matchAll(new RegExp(split.source, "gu"))].map((m) => m.index + m[0].length)
          expect(ends).toContain(cut)
        }
      }),
      { numRuns: 3000 },
    )
  })
})
