// bench/tokens: token counting time per MB of UTF-8 for normal text (the text of a generated agent history)
// and for adversarial text made of one long pre-token piece (300k dashes, 1 MB of one letter, 1 MB of '中').
// Ours: loadEncoders' o200k counter (exact; pieces found without the regex where the text is ASCII and counted
// once each, long pieces merged in O(m log m)). Peer: gpt-tokenizer's
// countTokens, whose merge loop is quadratic in a piece's length; on adversarial input it runs on 20k and
// 40k characters only (a megabyte would take hours), to show its growth next to ours on the same sizes.
import { clearMergeCache, countTokens } from "gpt-tokenizer/encoding/o200k_base"
import { blockText, loadEncoders } from "../src/history/tokens.js"
import { generateHistory } from "../test/fixtures/history/generate.js"
import { type Benchmark, type Metric, median, sample } from "./harness.js"

const MB = 1024 * 1024
const plain = { disallowedSpecial: new Set<string>() }
const utf8Bytes = (text: string) => Buffer.byteLength(text, "utf8")

/** About 1 MB of the text an agent history carries: file reads, command output, edits, prose. */
function normalText(seed: number): string {
  const parts: string[] = []
  let size = 0
  for (const m of generateHistory({ messages: 2000, fileLines: 170, seed })) {
    for (const b of m.content) {
      const t = blockText(b)
      parts.push(t)
      size += utf8Bytes(t)
    }
    if (size >= MB) break
  }
  return parts.join("\n")
}

/** An adversarial input: one character repeated; `full` chars for ours, `small` for the peer's growth. */
interface Adversarial {
  label: string
  char: string
  full: number
  small: number
}

const ADVERSARIAL: Adversarial[] = [
  { label: "300k dashes", char: "-", full: 300_000, small: 20_000 },
  { label: "1 MB of one letter", char: "a", full: MB, small: 20_000 },
  { label: "1 MB of '中'", char: "中", full: Math.floor(MB / 3), small: 5_000 },
]

/** ms of one peer count on an empty merge cache (a warm cache would hold the whole piece's answer). */
function peerMs(text: string): number {
  clearMergeCache()
  const t0 = process.hrtime.bigint()
  countTokens(text, plain)
  return Number(process.hrtime.bigint() - t0) / 1e6
}

/** Median ms of a few runs of `fn`. */
async function ms(fn: () => unknown, iterations: number): Promise<number> {
  return median(await sample(fn, iterations, 1)) / 1000
}

const tokens: Benchmark = {
  name: "tokens",
  async run(): Promise<Metric[]> {
    const encoders = await loadEncoders()
    const count = encoders.o200k
    // Builds the o200k rank table (a one-time cost per process), measured on its own.
    const t0 = process.hrtime.bigint()
    count("-".repeat(1000))
    const tableMs = Number(process.hrtime.bigint() - t0) / 1e6

    // Texts of histories with different seeds: none was counted before by either counter (a text counted again
    // would be answered from our remembered chunks), over the vocabulary the first one taught them. They are
    // histories of the same generated repository, so some file contents recur, as when an agent reads a file
    // again: our remembered chunks answer those.
    const texts = [11, 12, 13, 14, 15, 16].map(normalText)
    const normal = texts[0]!
    const normalMb = utf8Bytes(normal) / MB
    for (const t of texts) {
      if (count(t) !== countTokens(t, plain)) throw new Error("our count differs from gpt-tokenizer's")
    }
    // First counts: a new counter (no piece remembered) against gpt-tokenizer with an empty merge cache.
    clearMergeCache()
    const fresh = (await loadEncoders()).o200k
    const f0 = process.hrtime.bigint()
    fresh(normal)
    const oursFirst = Number(process.hrtime.bigint() - f0) / 1e6 / normalMb
    const peerFirst = peerMs(normal) / normalMb
    const perMbOfNew = (counter: (text: string) => number) =>
      median(
        texts.slice(1).map((t) => {
          const t0 = process.hrtime.bigint()
          counter(t)
          return Number(process.hrtime.bigint() - t0) / 1e6 / (utf8Bytes(t) / MB)
        }),
      )
    const oursNormal = perMbOfNew(fresh)
    const peerNormal = perMbOfNew((t) => countTokens(t, plain))
    const metrics: Metric[] = [
      {
        name: `normal text: 5 histories not counted before, same repository (${normalMb.toFixed(2)} MB each), time per MB`,
        unit: "ms/MB",
        ours: oursNormal,
        peer: { name: "gpt-tokenizer countTokens", value: peerNormal },
        better: "lower",
        target: "≤ 1.25x gpt-tokenizer (same counts)",
        met: oursNormal <= 1.25 * peerNormal,
      },
      {
        name: "normal text, first count in a new counter (no piece known yet), time per MB",
        unit: "ms/MB",
        ours: oursFirst,
        peer: { name: "gpt-tokenizer countTokens, merge cache cleared", value: peerFirst },
        better: "lower",
      },
      { name: "o200k rank table, built on the first long piece", unit: "ms", ours: tableMs, better: "lower" },
    ]
    // Each sample counts a text the counter has not met (it remembers the counts of chunks it has).
    let sample = 0
    const countNew = (text: string) => count(`${sample++} ${text}`)
    for (const a of ADVERSARIAL) {
      const text = a.char.repeat(a.full)
      const perMb = (await ms(() => countNew(text), 3)) / (utf8Bytes(text) / MB)
      metrics.push({
        name: `${a.label}, time per MB`,
        unit: "ms/MB",
        ours: perMb,
        better: "lower",
        target: `≤ 3x normal text per MB (${(perMb / oursNormal).toFixed(1)}x)`,
        met: perMb <= 3 * oursNormal,
      })
      const small = a.char.repeat(a.small)
      const double = a.char.repeat(2 * a.small)
      const ours1 = await ms(() => countNew(small), 3)
      const ours2 = await ms(() => countNew(double), 3)
      const peer1 = peerMs(small)
      const peer2 = peerMs(double)
      metrics.push(
        {
          name: `${a.label}: ${(2 * a.small).toLocaleString("en-US")} chars`,
          unit: "ms",
          ours: ours2,
          peer: { name: "gpt-tokenizer countTokens", value: peer2 },
          better: "lower",
        },
        {
          name: `${a.label}: time growth from ${a.small.toLocaleString("en-US")} to ${(2 * a.small).toLocaleString("en-US")} chars (linear 2x, quadratic 4x)`,
          unit: "x",
          ours: ours2 / ours1,
          peer: { name: "gpt-tokenizer countTokens", value: peer2 / peer1 },
          better: "lower",
        },
      )
    }
    return metrics
  },
}

export default tokens
