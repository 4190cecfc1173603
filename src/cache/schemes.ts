/**
 * How each wire format's provider caches a prompt: the order of the parts in the cached prefix, whether
 * the prefix is cut at explicit breakpoints or automatically, the unit the cached length is counted in, and
 * the lifetime of an entry. Each format's descriptor holds its scheme (providers/<format>/descriptor.ts).
 */
import type { CacheLifetime, ModelInfo } from "../models/types.js"
import type { CacheScheme, RequestPart } from "../providers/descriptor.js"
import { perFormat, type WireFormat } from "../providers/descriptors.js"

/** The three parts of a request, and the caching rules of one wire format's provider (its descriptor's `cache`). */
export type { CacheScheme, RequestPart }

const MINUTE = 60_000

/** The caching scheme of each wire format, from the descriptors. */
export const CACHE_SCHEMES: { readonly [F in WireFormat]: CacheScheme } = perFormat((d) => d.cache)

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
