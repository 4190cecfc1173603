import type { CacheRules, ModelInfo } from "../types.js"

// OpenAI: numbers checked 2026-11-29 against the model pages (developers.openai.com/api/docs/models/<id>).
// Caching is automatic for prompts of 1,024 tokens or more; GPT-6 models also price cache writes
// (30-minute retention by default, 12 hours on request). The GPT-6 tokenizer is not published
// separately; we count it with o200k, as for GPT-4o and GPT-5.

const page = (id: string) => `https://developers.openai.com/api/docs/models/${id}`

const automatic: CacheRules = { minTokens: 1024, maxBreakpoints: 0, ttls: ["5m", "1h", "24h"] }
const gpt6Cache: CacheRules = { minTokens: 1024, maxBreakpoints: 0, ttls: ["30m", "12h"] }
const reasoning = { nativeTools: true, images: true, thinking: true }
const plain = { nativeTools: true, images: true, thinking: false }

/** A GPT-6 row: 1.05M window, 922k input, 128k output, long-context prices past 272k input tokens. */
function gpt6(id: string, input: number, output: number, cacheRead: number, cacheWrite: number): ModelInfo {
  return {
    id,
    provider: "openai",
    family: "gpt",
    contextWindow: 1_050_000,
    maxInput: 922_000,
    maxOutput: 128_000,
    tokenizer: "o200k",
    capabilities: reasoning,
    cache: gpt6Cache,
    prices: {
      input,
      output,
      cacheRead,
      cacheWrite,
      longContext: { above: 272_000, input: input * 2, output: output * 1.5, cacheRead: cacheRead * 2 },
    },
    source: page(id),
  }
}

/** The OpenAI models (GPT-6 generation first, then older models still served). */
export const openaiModels: ModelInfo[] = [
  gpt6("gpt-6.2-sol", 2, 10, 0.1, 2.5),
  gpt6("gpt-6.2-astra", 8, 40, 0.4, 10),
  gpt6("gpt-6.1-sol", 2, 10, 0.1, 2.5),
  gpt6("gpt-6-sol", 2, 10, 0.2, 2.5),
  gpt6("gpt-6-astra", 10, 50, 1, 12.5),
  gpt6("gpt-6-luna", 0.1, 0.5, 0.01, 0.125),
  {
    id: "gpt-5",
    provider: "openai",
    family: "gpt",
    contextWindow: 400_000,
    maxInput: 272_000,
    maxOutput: 128_000,
    tokenizer: "o200k",
    capabilities: reasoning,
    cache: automatic,
    prices: { input: 1.25, output: 10, cacheRead: 0.125 },
    source: page("gpt-5"),
  },
  {
    id: "gpt-5-mini",
    provider: "openai",
    family: "gpt",
    contextWindow: 400_000,
    maxInput: 272_000,
    maxOutput: 128_000,
    tokenizer: "o200k",
    capabilities: reasoning,
    cache: automatic,
    prices: { input: 0.25, output: 2, cacheRead: 0.025 },
    source: page("gpt-5-mini"),
  },
  {
    id: "gpt-4.1",
    provider: "openai",
    family: "gpt",
    contextWindow: 1_047_576,
    maxOutput: 32_768,
    tokenizer: "o200k",
    capabilities: plain,
    cache: automatic,
    prices: { input: 2, output: 8, cacheRead: 0.5 },
    source: page("gpt-4.1"),
  },
  {
    id: "gpt-4o",
    provider: "openai",
    family: "gpt",
    contextWindow: 128_000,
    maxOutput: 16_384,
    tokenizer: "o200k",
    capabilities: plain,
    cache: automatic,
    prices: { input: 2.5, output: 10, cacheRead: 1.25 },
    source: page("gpt-4o"),
  },
  {
    id: "gpt-4o-mini",
    provider: "openai",
    family: "gpt",
    contextWindow: 128_000,
    maxOutput: 16_384,
    tokenizer: "o200k",
    capabilities: plain,
    cache: automatic,
    prices: { input: 0.15, output: 0.6, cacheRead: 0.075 },
    source: page("gpt-4o-mini"),
  },
  {
    id: "o3",
    provider: "openai",
    family: "o-series",
    contextWindow: 200_000,
    maxOutput: 100_000,
    tokenizer: "o200k",
    capabilities: reasoning,
    cache: automatic,
    prices: { input: 2, output: 8, cacheRead: 0.5 },
    source: page("o3"),
  },
  {
    id: "o4-mini",
    provider: "openai",
    family: "o-series",
    contextWindow: 200_000,
    maxOutput: 100_000,
    tokenizer: "o200k",
    capabilities: reasoning,
    cache: automatic,
    prices: { input: 1.1, output: 4.4, cacheRead: 0.275 },
    source: page("o4-mini"),
  },
  {
    id: "gpt-4-turbo",
    provider: "openai",
    family: "gpt",
    contextWindow: 128_000,
    maxOutput: 4_096,
    tokenizer: "cl100k",
    capabilities: plain,
    prices: { input: 10, output: 30 },
    source: page("gpt-4-turbo"),
  },
  {
    id: "gpt-3.5-turbo",
    provider: "openai",
    family: "gpt",
    contextWindow: 16_385,
    maxOutput: 4_096,
    tokenizer: "cl100k",
    capabilities: { nativeTools: true, images: false, thinking: false },
    prices: { input: 0.5, output: 1.5 },
    source: page("gpt-3.5-turbo"),
  },
]
