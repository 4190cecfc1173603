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

/** How hard a model is asked to think, in the words most providers use; each encoder maps it to its own scale. */
export type ReasoningEffort = "minimal" | "low" | "medium" | "high" | "xhigh" | "max"

/** The reasoning efforts (or Gemini 3 thinking levels) from least to most thinking. */
export const REASONING_EFFORTS: readonly ReasoningEffort[] = ["minimal", "low", "medium", "high", "xhigh", "max"]

/**
 * How a model's thinking is controlled and which values its API accepts. Encoders read these rules and
 * clamp (with a diagnostic) what a caller asks for, instead of sending a value the provider refuses.
 */
export interface ThinkingRules {
  /** What the API takes: a token budget (Gemini 2.5), a level (Gemini 3) or an effort (OpenAI). */
  control: "budget" | "level" | "effort"
  /** Thinking can be turned off (a budget of 0, or the effort `none`). */
  canDisable: boolean
  /** Smallest thinking budget accepted, apart from 0 when thinking can be turned off. */
  minBudget?: number
  /** Largest thinking budget accepted. */
  maxBudget?: number
  /** Efforts or levels accepted, least thinking first. */
  efforts?: readonly ReasoningEffort[]
}

/**
 * A model's end of life as its provider publishes it (the provider's deprecations page): when it was deprecated,
 * the day requests to it start to fail, and the model the provider names in its place.
 */
export interface ModelLifecycle {
  /** The day the provider announced the deprecation (YYYY-MM-DD), when it says. */
  deprecated?: string
  /** The first day requests fail (YYYY-MM-DD): the retirement or shutdown date. */
  retires: string
  /** The provider's recommended replacement (a model id), when it names one. */
  successor?: string
  /** Where the dates come from (the provider's deprecations page or the model's page). */
  source: string
  /** The day the dates were last checked against `source` (YYYY-MM-DD). */
  checked: string
  /** What the sources left open or disagreed on, and what the row assumes. */
  note?: string
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
    /** Takes system messages in the middle of the conversation (Anthropic: only some models); absent means no. */
    systemMessages?: boolean
  }
  /** Which thinking settings the API accepts; absent when unknown (requests are then sent as asked). */
  thinking?: ThinkingRules
  cache?: CacheRules
  prices?: Prices
  /** Where the numbers come from (a documentation URL). */
  source: string
  /** The day the row was last checked against `source` (YYYY-MM-DD); every catalog row has one. */
  checked?: string
  /** What the sources did not say, or where they disagreed, and what the row assumes instead. */
  note?: string
  /** The catalog row this model was resolved from, when `id` is a snapshot, alias or routed form of it. */
  canonicalId?: string
  /**
   * Deprecation and retirement on the provider's own API (partner platforms such as Bedrock or Vertex keep their
   * own schedules, so a model served by another provider carries none). Absent: no end of life announced.
   */
  lifecycle?: ModelLifecycle
}

/** The request/stream formats promptline speaks, and all of them in documentation order: the descriptors' names. */
export { type BuiltInWireFormat, WIRE_FORMATS, type WireFormat } from "../providers/descriptors.js"
