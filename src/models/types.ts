/** The tokenizer a model uses, or the family whose estimate applies. */
export type TokenizerFamily = "o200k" | "cl100k" | "claude" | "gemini" | "estimate"

/** A prompt-cache lifetime a provider offers. */
export type CacheLifetime = "5m" | "30m" | "1h" | "12h" | "24h"

/** Prompt-cache rules of a model. */
export interface CacheRules {
  /** Below this many tokens a cache breakpoint does nothing. */
  minTokens: number
  /** Most cache breakpoints one request may carry (Anthropic: 4). 0 means automatic caching. */
  maxBreakpoints: number
  /** Supported time-to-live values. */
  ttls: CacheLifetime[]
}

/** Prices in US dollars per million tokens. */
export interface Prices {
  input: number
  output: number
  cacheRead?: number
  /** Writing to the cache with the default (shortest) TTL. */
  cacheWrite?: number
  /** Writing to the cache with the one-hour (or longest) TTL, when it is priced differently. */
  cacheWriteLong?: number
  /** Prices that apply to the whole request once its prompt exceeds `above` tokens. */
  longContext?: { above: number; input: number; output: number; cacheRead?: number; cacheWrite?: number }
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
  /** Most prompt tokens accepted, when lower than `contextWindow` minus output. */
  maxInput?: number
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
  /** The catalog row this model was resolved from, when `id` is a snapshot, alias or routed form of it. */
  canonicalId?: string
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
