import type { ModelInfo } from "../types.js"

// DeepSeek, xAI, Mistral and Qwen: numbers checked 2026-11-29. Where a provider does not publish a
// figure (maximum output for xAI and Mistral, cache prices for xAI, Mistral and Qwen), the row says so
// in a comment and leaves the price out rather than guessing it.

const tools = { nativeTools: true, images: false, thinking: false }
const reasoner = { nativeTools: true, images: false, thinking: true }

/** DeepSeek V4 (the deepseek-chat and deepseek-reasoner names were retired 2026-07-24; they map to V4 Flash). */
export const deepseekModels: ModelInfo[] = [
  {
    id: "deepseek-v4-pro",
    provider: "deepseek",
    family: "deepseek",
    contextWindow: 1_000_000,
    maxOutput: 384_000,
    tokenizer: "estimate",
    capabilities: reasoner,
    // Automatic disk cache, in 64-token units; no breakpoints.
    cache: { minTokens: 64, maxBreakpoints: 0, ttls: ["1h"] },
    prices: { input: 0.435, output: 0.87, cacheRead: 0.003625 },
    source: "https://api-docs.deepseek.com/quick_start/pricing",
  },
  {
    id: "deepseek-v4-flash",
    aliases: ["deepseek-chat", "deepseek-reasoner"],
    provider: "deepseek",
    family: "deepseek",
    contextWindow: 1_000_000,
    maxOutput: 384_000,
    tokenizer: "estimate",
    capabilities: reasoner,
    cache: { minTokens: 64, maxBreakpoints: 0, ttls: ["1h"] },
    prices: { input: 0.14, output: 0.28, cacheRead: 0.0028 },
    source: "https://api-docs.deepseek.com/quick_start/pricing",
  },
]

const XAI = "https://docs.x.ai/docs/models"

/** xAI Grok. Maximum output is not published; 32,768 is assumed. Caching is automatic. */
export const xaiModels: ModelInfo[] = [
  {
    id: "grok-4.5",
    provider: "xai",
    family: "grok",
    contextWindow: 500_000,
    maxOutput: 32_768,
    tokenizer: "estimate",
    capabilities: { nativeTools: true, images: true, thinking: true },
    prices: { input: 2, output: 6 },
    source: XAI,
  },
  {
    id: "grok-4.3",
    provider: "xai",
    family: "grok",
    contextWindow: 1_000_000,
    maxOutput: 32_768,
    tokenizer: "estimate",
    capabilities: { nativeTools: true, images: true, thinking: true },
    prices: { input: 1.25, output: 2.5 },
    source: XAI,
  },
  {
    id: "grok-4.20-0309-reasoning",
    aliases: ["grok-4.20-0309-non-reasoning"],
    provider: "xai",
    family: "grok",
    contextWindow: 1_000_000,
    maxOutput: 32_768,
    tokenizer: "estimate",
    capabilities: { nativeTools: true, images: true, thinking: true },
    prices: { input: 1.25, output: 2.5 },
    source: XAI,
  },
  {
    id: "grok-build-0.1",
    aliases: ["grok-code-fast-1", "grok-code-fast"],
    provider: "xai",
    family: "grok",
    contextWindow: 256_000,
    maxOutput: 32_768,
    tokenizer: "estimate",
    capabilities: reasoner,
    prices: { input: 1, output: 2 },
    source: XAI,
  },
]

const MISTRAL = "https://docs.mistral.ai/getting-started/models/"

/** Mistral. Output shares the window; 32,768 is used as the per-request maximum. */
export const mistralModels: ModelInfo[] = [
  {
    id: "devstral-2512",
    aliases: ["devstral-2", "devstral-latest", "devstral-medium-latest"],
    provider: "mistral",
    family: "mistral",
    contextWindow: 262_144,
    maxOutput: 32_768,
    tokenizer: "estimate",
    capabilities: tools,
    prices: { input: 0.4, output: 2 },
    source: MISTRAL,
  },
  {
    id: "devstral-small-2512",
    aliases: ["devstral-small-latest"],
    provider: "mistral",
    family: "mistral",
    contextWindow: 262_144,
    maxOutput: 32_768,
    tokenizer: "estimate",
    capabilities: tools,
    prices: { input: 0.1, output: 0.3 },
    source: MISTRAL,
  },
  {
    id: "codestral-2508",
    aliases: ["codestral-latest"],
    provider: "mistral",
    family: "mistral",
    contextWindow: 256_000,
    maxOutput: 32_768,
    tokenizer: "estimate",
    capabilities: tools,
    prices: { input: 0.3, output: 0.9 },
    source: MISTRAL,
  },
  {
    id: "mistral-large-2512",
    aliases: ["mistral-large-latest"],
    provider: "mistral",
    family: "mistral",
    contextWindow: 262_144,
    maxOutput: 32_768,
    tokenizer: "estimate",
    capabilities: { nativeTools: true, images: true, thinking: false },
    prices: { input: 0.5, output: 1.5 },
    source: MISTRAL,
  },
  {
    id: "mistral-medium-2508",
    aliases: ["mistral-medium-latest"],
    provider: "mistral",
    family: "mistral",
    contextWindow: 131_072,
    maxOutput: 32_768,
    tokenizer: "estimate",
    capabilities: { nativeTools: true, images: true, thinking: false },
    prices: { input: 0.4, output: 2 },
    source: MISTRAL,
  },
  {
    id: "mistral-small-2506",
    aliases: ["mistral-small-latest"],
    provider: "mistral",
    family: "mistral",
    contextWindow: 131_072,
    maxOutput: 32_768,
    tokenizer: "estimate",
    capabilities: { nativeTools: true, images: true, thinking: false },
    prices: { input: 0.1, output: 0.3 },
    source: MISTRAL,
  },
]

const QWEN = "https://www.alibabacloud.com/help/en/model-studio/models"

/** Qwen on Alibaba Cloud Model Studio (prices of the lowest prompt-length tier). */
export const qwenModels: ModelInfo[] = [
  {
    id: "qwen3-max",
    provider: "qwen",
    family: "qwen",
    contextWindow: 262_144,
    maxOutput: 65_536,
    tokenizer: "estimate",
    capabilities: reasoner,
    prices: { input: 1.2, output: 6 },
    source: QWEN,
  },
  {
    id: "qwen3-coder-plus",
    provider: "qwen",
    family: "qwen",
    contextWindow: 1_000_000,
    maxOutput: 65_536,
    tokenizer: "estimate",
    capabilities: tools,
    prices: { input: 1, output: 5 },
    source: QWEN,
  },
  {
    id: "qwen3-coder-next",
    provider: "qwen",
    family: "qwen",
    contextWindow: 262_144,
    maxOutput: 65_536,
    tokenizer: "estimate",
    capabilities: tools,
    prices: { input: 0.07, output: 0.3 },
    source: "https://openrouter.ai/qwen/qwen3-coder-next",
  },
]
