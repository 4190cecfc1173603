import { createHash } from "node:crypto"
import { setBounded } from "../bounded-map.js"
import { lazyModule } from "../lazy-module.js"
import type { TokenizerFamily } from "../models/types.js"
import type { Overhead } from "../providers/descriptor.js"
import { descriptorOf, type WireFormat } from "../providers/descriptors.js"
import { type Block, type Message, textOf } from "./message.js"
import { encodingCounter } from "./piece-count.js"

/**
 * Token counting. OpenAI encodings (o200k, cl100k) are counted exactly with gpt-tokenizer; other
 * families are estimated as o200k × a calibrated factor. Counts are cached per block (by object
 * identity, then by content hash), so a turn costs only the content that is new.
 */

/**
 * Estimate factors: tokens of the family per o200k token, measured on a mixed corpus of code, prose
 * and JSON (about 580k characters; see docs/context-manager.md for the method and per-kind figures).
 * gemini: measured 1.077 with Google's published Gemma/Gemini SentencePiece vocabulary.
 * claude: Anthropic publishes no tokenizer for current models; the public legacy one measures 1.064,
 * third-party count_tokens comparisons report 18–30% above o200k, so 1.25 (on the safe side).
 * estimate (DeepSeek, Qwen, Mistral, Llama, ...): 1.10, a safe default for 100k–150k vocabularies.
 */
export const ESTIMATE_FACTORS: Readonly<Record<TokenizerFamily, number>> = {
  o200k: 1,
  cl100k: 1,
  gemini: 1.08,
  claude: 1.25,
  estimate: 1.1,
}

/** Fixed token costs a wire format adds around the content (each format's descriptor holds its own). */
export type { Overhead }

/** The overheads of a wire format, built-in or registered: its descriptor's (providers/<format>/descriptor.ts says where each figure comes from). */
export function overheadOf(format: WireFormat): Overhead {
  return descriptorOf(format).overhead
}

/** A function from text to its exact token count in one encoding. */
export type EncodingCounter = (text: string) => number

/** The loaded exact encoders. */
export interface Encoders {
  o200k: EncodingCounter
  cl100k: EncodingCounter
}

/** gpt-tokenizer's cl100k encoding and its rank list, required on the first cl100k count. */
const cl100kModule = lazyModule<typeof import("gpt-tokenizer/encoding/cl100k_base")>(
  "gpt-tokenizer/encoding/cl100k_base",
)
const cl100kRanks = lazyModule<typeof import("gpt-tokenizer/bpeRanks/cl100k_base")>(
  "gpt-tokenizer/bpeRanks/cl100k_base",
)

/** Special-token text (e.g. `<|endoftext|>` inside a file) is counted as ordinary text. */
const PLAIN = { disallowedSpecial: new Set<string>() }

/**
 * Loads gpt-tokenizer's o200k encoder (about 0.2–0.5 s the first time in a process); cl100k, which only
 * older OpenAI models use, is loaded on its first count (another 0.2 s that most processes never pay). Counts
 * are exact; pieces are found by our scanner and counted once each (see piece-count.ts), and pieces longer
 * than MAX_PIECE bypass gpt-tokenizer's quadratic merge loop; each encoding's rank table is built the first
 * time it meets such a piece.
 */
export async function loadEncoders(): Promise<Encoders> {
  const [o200k, o200kRanks, { O200K_TOKEN_SPLIT_REGEX, CL100K_TOKEN_SPLIT_REGEX }] = await Promise.all([
    import("gpt-tokenizer/encoding/o200k_base"),
    import("gpt-tokenizer/bpeRanks/o200k_base"),
    import("gpt-tokenizer/encodingParams/constants"),
  ])
  let cl100k: EncodingCounter | undefined
  return {
    o200k: encodingCounter("o200k", {
      exact: (text) => o200k.countTokens(text, PLAIN),
      split: O200K_TOKEN_SPLIT_REGEX,
      ranks: () => o200kRanks.default,
    }),
    cl100k: (text) => {
      cl100k ??= encodingCounter("cl100k", {
        exact: (piece) => cl100kModule().countTokens(piece, PLAIN),
        split: CL100K_TOKEN_SPLIT_REGEX,
        ranks: () => cl100kRanks().default,
      })
      return cl100k(text)
    },
  }
}

/** Options of a TokenCounter. */
export interface TokenCounterOptions {
  /** Most entries kept per cache (content hashes; short texts per encoding), oldest dropped first. Default 50,000. */
  maxEntries?: number
  /** Override estimate factors per family. */
  factors?: Partial<Record<TokenizerFamily, number>>
}

/** Texts shorter than this are counted directly instead of hashed. */
const HASH_THRESHOLD = 256

/** Counts tokens of text, blocks and messages for a tokenizer family; caches per block and message. */
export class TokenCounter {
  private readonly encoders: Encoders
  private readonly factors: Record<TokenizerFamily, number>
  private readonly maxEntries: number
  /** o200k or cl100k count by content hash; estimates derive from o200k. */
  private readonly byHash = new Map<string, number>()
  /** Counts of short texts by the text itself, per encoding (notices and tool inputs recur turn after turn). */
  private readonly short = { o200k: new Map<string, number>(), cl100k: new Map<string, number>() }
  private readonly byBlock = new WeakMap<object, { o200k?: number; cl100k?: number }>()
  private readonly byMessage = new WeakMap<object, Map<string, number>>()

  constructor(encoders: Encoders, options: TokenCounterOptions = {}) {
    this.encoders = encoders
    this.factors = { ...ESTIMATE_FACTORS, ...options.factors }
    this.maxEntries = options.maxEntries ?? 50_000
  }

  /** Loads the encoders and returns a counter. */
  static async create(options?: TokenCounterOptions): Promise<TokenCounter> {
    return new TokenCounter(await loadEncoders(), options)
  }

  /** The factor applied to o200k counts for a family (1 for exact families). */
  factor(family: TokenizerFamily): number {
    return family === "cl100k" ? 1 : this.factors[family]
  }

  /** Exact o200k or cl100k count of a text, cached by the text when short and by content hash when long. */
  private exact(text: string, encoding: "o200k" | "cl100k"): number {
    if (text.length < HASH_THRESHOLD) {
      const known = this.short[encoding]
      const hit = known.get(text)
      if (hit !== undefined) return hit
      const n = this.encoders[encoding](text)
      // Kept as a copy: a short text cut from a long one (a slice) would keep the long one alive.
      setBounded(known, ` ${text}`.slice(1), n, this.maxEntries)
      return n
    }
    const key = `${encoding}:${createHash("sha1").update(text).digest("base64")}`
    const hit = this.byHash.get(key)
    if (hit !== undefined) return hit
    const n = this.encoders[encoding](text)
    setBounded(this.byHash, key, n, this.maxEntries)
    return n
  }

  /** Tokens of a text for a family: exact for o200k/cl100k, o200k × factor (rounded up) otherwise. */
  countText(text: string, family: TokenizerFamily = "o200k"): number {
    if (family === "cl100k") return this.exact(text, "cl100k")
    const n = this.exact(text, "o200k")
    return family === "o200k" ? n : Math.ceil(n * this.factors[family])
  }

  /** Content tokens of one block (without wire overhead), cached by block identity. */
  countBlock(block: Block, family: TokenizerFamily = "o200k", overhead?: Overhead): number {
    const encoding = family === "cl100k" ? "cl100k" : "o200k"
    let entry = this.byBlock.get(block)
    if (!entry) {
      entry = {}
      this.byBlock.set(block, entry)
    }
    let base = entry[encoding]
    if (base === undefined) {
      base = this.exact(blockText(block), encoding)
      entry[encoding] = base
    }
    const scaled = family === "o200k" || family === "cl100k" ? base : Math.ceil(base * this.factors[family])
    if (!overhead) return scaled
    if (block.type === "image") return overhead.image
    if (block.type === "tool_use" || block.type === "tool_result") return scaled + overhead.toolBlock
    return scaled
  }

  /** Tokens of one message: its blocks plus the per-message overhead; cached per message object. */
  countMessage(
    message: Message,
    family: TokenizerFamily,
    overhead: Overhead,
    key = cacheKey(family, overhead),
  ): number {
    let perMessage = this.byMessage.get(message)
    const hit = perMessage?.get(key)
    if (hit !== undefined) return hit
    let n = overhead.message
    for (const block of message.content) n += this.countBlock(block, family, overhead)
    for (const block of message.content) {
      if (block.type === "tool_result" && Array.isArray(block.content)) {
        for (const part of block.content) if (part.type === "image") n += overhead.image
      }
    }
    if (!perMessage) {
      perMessage = new Map()
      this.byMessage.set(message, perMessage)
    }
    perMessage.set(key, n)
    return n
  }

  /** Tokens of a list of messages, plus the per-request overhead. */
  countMessages(messages: readonly Message[], family: TokenizerFamily, overhead: Overhead): number {
    let n = overhead.request
    const key = cacheKey(family, overhead)
    for (const m of messages) n += this.countMessage(m, family, overhead, key)
    return n
  }

  /** Tokens of tool definitions (name, description and JSON Schema of each) plus their overheads. */
  countTools(
    tools: readonly { name: string; description?: string; parameters?: unknown }[],
    family: TokenizerFamily,
    overhead: Overhead,
  ): number {
    if (tools.length === 0) return 0
    let n = overhead.toolsPreamble
    for (const t of tools) {
      n +=
        overhead.tool +
        this.countText(`${t.name}\n${t.description ?? ""}\n${JSON.stringify(t.parameters ?? {})}`, family)
    }
    return n
  }
}

/** The key under which a message's count is cached for a family and the overheads that affect it. */
export function cacheKey(family: TokenizerFamily, overhead: Overhead): string {
  return `${family}/${overhead.message}/${overhead.toolBlock}/${overhead.image}`
}

/** The text of a block as a tokenizer sees it (tool inputs as JSON; images count by overhead only). */
export function blockText(block: Block): string {
  switch (block.type) {
    case "text":
      return block.text
    case "thinking":
      return block.text
    case "redacted_thinking":
      return block.data
    case "image":
      return ""
    case "tool_use":
      return `${block.name} ${JSON.stringify(block.input ?? {})}`
    case "tool_result":
      return [textOf(block, { separator: "\n", image: "" }), ...(block.references ?? [])].join("\n")
    case "tool_search":
      return `${block.name} ${JSON.stringify(block.input ?? {})} ${block.found.join(" ")}`
    case "compaction":
      // The provider's own count is unknown: the readable summary, else the opaque payload (the safe side).
      return block.summary ?? block.payload ?? ""
  }
}
