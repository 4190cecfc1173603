/** The tokenizer a model uses, or the family whose estimate applies. */
export type TokenizerFamily = "o200k" | "cl100k" | "claude" | "gemini" | "estimate"

/** Prompt-cache rules of a model. */
export interface CacheRules {
  /** Below this many tokens a cache breakpoint does nothing. */
  minTokens: number
  /** Most cache breakpoints one request may carry (Anthropic: 4). 0 means automatic caching. */
  maxBreakpoints: number
  /** Supported time-to-live values. */
  ttls: ("5m" | "1h")[]
}

/** Prices in US dollars per million tokens. */
export interface Prices {
  input: number
  output: number
  cacheRead?: number
  cacheWrite?: number
}

/** One row of the model catalog. */
export interface ModelInfo {
  /** Canonical id as the provider's API takes it. */
  id: string
  /** Other ids and dated snapshots that mean the same model. */
  aliases?: string[]
  provider: string
  /** Model family: claude, gpt, o-series, gemini, deepseek, grok, mistral, qwen, llama, ... */
  family: string
  contextWindow: number
  maxOutput: number
  tokenizer: TokenizerFamily
  /** Runs locally (Ollama, LM Studio, llama.cpp); prompts for it must be small. */
  local?: boolean
  capabilities: {
    nativeTools: boolean
    images: boolean
    thinking: boolean
  }
  cache?: CacheRules
  prices?: Prices
  /** Where the numbers come from (a documentation URL). */
  source: string
}

/** The request/stream formats promptline speaks. */
export type WireFormat = "anthropic" | "openai-chat" | "openai-responses" | "gemini" | "deepseek"

/** All wire formats, in documentation order. */
export const WIRE_FORMATS: readonly WireFormat[] = [
  "anthropic",
  "openai-chat",
  "openai-responses",
  "gemini",
  "deepseek",
]
