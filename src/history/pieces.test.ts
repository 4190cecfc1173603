import fc from "fast-check"
import { CL100K_TOKEN_SPLIT_REGEX, O200K_TOKEN_SPLIT_REGEX } from "gpt-tokenizer/encodingParams/constants"
import { describe, expect, it } from "vitest"
import { cl100kPieceEnd, o200kPieceEnd, type PieceEnd, regexPieceEnd } from "./pieces.js"

const encodings: [string, PieceEnd, RegExp][] = [
  ["o200k", o200kPieceEnd, O200K_TOKEN_SPLIT_REGEX],
  ["cl100k", cl100kPieceEnd, CL100K_TOKEN_SPLIT_REGEX],
]

const byRegex = (text: string, split: RegExp) => [...text.matchAll(new RegExp(split.source, "gu"))].map((m) => m[0])

/** The pieces as PieceCounter finds them: the scanner, and the regex where the scanner cannot tell. */
function byScanner(text: string, end: PieceEnd, split: RegExp): string[] {
  const sticky = new RegExp(split.source, "uy")
  const pieces: string[] = []
  for (let at = 0; at < text.length; ) {
    let e = end(text, at)
    if (e < 0) e = regexPieceEnd(text, at, sticky)
    pieces.push(text.slice(at, e))
    at = e
  }
  return pieces
}

/** How often the scanner answered without the regex (to prove the fast path is taken, not only the fallback). */
function scannerShare(text: string, end: PieceEnd): number {
  let at = 0
  let answered = 0
  let pieces = 0
  const sticky = new RegExp(O200K_TOKEN_SPLIT_REGEX.source, "uy")
  while (at < text.length) {
    const e = end(text, at)
    pieces++
    if (e >= 0) answered++
    sticky.lastIndex = at
    at = e >= 0 ? e : at + sticky.exec(text)![0].length
  }
  return answered / pieces
}

// Every ASCII class boundary the regexes care about, contraction letters, and characters outside ASCII that
// are letters of both cases (Lo, Lt, Lm), marks, digits, whitespace and punctuation.
const ASCII_PARTS = [..."aZsStTdDmMlLvVeErR09 \t\n\r\v\f'/-_.,;:()[]{}<>=+*&^%$#@!?\"`~|\\\u0000\u001f\u007f"]
const OTHER_PARTS = [
  "é",
  "É",
  "ǅ",
  "ʰ",
  "中",
  "\u0301",
  "٣",
  "\u00a0",
  "\u2028",
  "\u3000",
  "—",
  "😀",
  "\ufeff",
  "\ud800",
]
const char = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom(...ASCII_PARTS) },
  { weight: 1, arbitrary: fc.constantFrom(...OTHER_PARTS) },
)
const word = fc.constantFrom(
  "it's",
  "WE'LL",
  "Don'T",
  "HTTPServer",
  "x2",
  "  \n\n  ",
  "\r\n",
  "//\n//",
  " ---\n",
  "ab   c",
)
const text = fc.array(fc.oneof(char, word), { maxLength: 60 }).map((parts) => parts.join(""))

describe("pieces: the pre-token split without the regex", () => {
  for (const [name, end, split] of encodings) {
    it(`${name}: gives the regex's pieces for any text`, () => {
      fc.assert(
        fc.property(text, (t) => {
          expect(byScanner(t, end, split)).toEqual(byRegex(t, split))
        }),
        { numRuns: 3000 },
      )
      fc.assert(
        fc.property(fc.string({ unit: "binary", maxLength: 30 }), (t) => {
          expect(byScanner(t, end, split)).toEqual(byRegex(t, split))
        }),
      )
    })

    it(`${name}: answers ASCII source text without the regex`, () => {
      const source =
        "export function f(a: number): string {\n  return `${a}` // it's fine\n}\n\n\tconst X_1 = [1, 22, 333, 4444]\n"
      expect(byScanner(source, end, split)).toEqual(byRegex(source, split))
      expect(scannerShare(source, end)).toBe(1)
      // A letter outside ASCII ends the scanner's say on the pieces that touch it, not on the others.
      const mixed = "caf\u00e9 au lait, s'il vous pla\u00eet"
      expect(byScanner(mixed, end, split)).toEqual(byRegex(mixed, split))
      expect(scannerShare(mixed, end)).toBeGreaterThan(0.5)
      expect(scannerShare(mixed, end)).toBeLessThan(1)
    })
  }
})
