/**
 * How each wire format's provider caches a prompt: the order of the parts in the cached prefix, whether
 * the prefix is cut at explicit breakpoints or automatically, the unit the cached length is counted in, and
 * the lifetime of an entry. One row per format, so adding a format is a compile error here until it has one.
 */
import type { CacheLifetime, ModelInfo, WireFormat } from "../models/types.js"

/** The three parts of a request, in the order a scheme lists them. */
export type RequestPart = "tools" | "system" | "messages"

/** The caching rules of one wire format's provider. */
export interface CacheScheme {
  /** The order of the parts in the cached prefix. */
  order: readonly RequestPart[]
  /** `breakpoints`: only prefixes ending at a `cache_control` marker are cached (Anthropic); `automatic`: any prefix. */
  mode: "breakpoints" | "automatic"
  /** Cached lengths are whole multiples of this many tokens past `minimum` (OpenAI 128, DeepSeek 64). */
  unit: number
  /** Blocks before a breakpoint the provider looks back for an earlier entry (Anthropic: 20). */
  lookback: number
  /** Lifetime of an entry when neither the body nor the catalog says (milliseconds). */
  defaultLifetimeMs: number
  /** The minimum cacheable prefix when the catalog has no figure. */
  defaultMinimum: number
  /** Words for docs and reports. */
  describe: string
}

const MINUTE = 60_000

/** The caching scheme of each wire format. */
export const CACHE_SCHEMES: { readonly [F in WireFormat]: CacheScheme } = {
  anthropic: {
    order: ["tools", "system", "messages"],
    mode: "breakpoints",
    unit: 1,
    lookback: 20,
    defaultLifetimeMs: 5 * MINUTE,
    defaultMinimum: 1024,
    describe: "tools → system → messages, cached up to each cache_control breakpoint",
  },
  "openai-chat": {
    order: ["tools", "system", "messages"],
    mode: "automatic",
    unit: 128,
    lookback: 0,
    defaultLifetimeMs: 5 * MINUTE,
    defaultMinimum: 1024,
    describe: "automatic prefix caching of the input as sent, in 128-token steps from 1,024 tokens",
  },
  "openai-responses": {
    order: ["tools", "system", "messages"],
    mode: "automatic",
    unit: 128,
    lookback: 0,
    defaultLifetimeMs: 5 * MINUTE,
    defaultMinimum: 1024,
    describe: "automatic prefix caching of the input as sent, in 128-token steps from 1,024 tokens",
  },
  gemini: {
    order: ["system", "tools", "messages"],
    mode: "automatic",
    unit: 1,
    lookback: 0,
    defaultLifetimeMs: 5 * MINUTE,
    defaultMinimum: 1024,
    describe: "implicit caching of system instruction → tools → contents",
  },
  deepseek: {
    order: ["tools", "system", "messages"],
    mode: "automatic",
    unit: 64,
    lookback: 0,
    defaultLifetimeMs: 60 * MINUTE,
    defaultMinimum: 64,
    describe: "automatic disk caching of the input as sent, in 64-token units",
  },
}

const LIFETIMES: Readonly<Record<string, number>> = {
  "5m": 5 * MINUTE,
  "30m": 30 * MINUTE,
  "1h": 60 * MINUTE,
  "12h": 12 * 60 * MINUTE,
  "24h": 24 * 60 * MINUTE,
  // OpenAI's default retention: entries live 5–10 minutes without use; the short end is taken.
  in_memory: 5 * MINUTE,
}

/** Milliseconds a cache entry lives: what the body asked for, else the catalog's shortest, else the scheme's. */
export function lifetimeMs(scheme: CacheScheme, model: ModelInfo, requested?: string): number {
  if (requested && LIFETIMES[requested] !== undefined) return LIFETIMES[requested]
  const shortest = model.cache?.ttls[0] as CacheLifetime | undefined
  return shortest ? LIFETIMES[shortest]! : scheme.defaultLifetimeMs
}

/** The smallest prefix the model caches. */
export function minimumTokens(scheme: CacheScheme, model: ModelInfo): number {
  return model.cache?.minTokens ?? scheme.defaultMinimum
}

/** The cached length an automatic scheme reports for a shared prefix of `tokens`: 0 below the minimum, whole units above. */
export function automaticRead(scheme: CacheScheme, minimum: number, tokens: number): number {
  if (tokens < minimum) return 0
  return minimum + Math.floor((tokens - minimum) / scheme.unit) * scheme.unit
}
