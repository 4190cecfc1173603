/**
 * What a cache miss cost: the tokens it left uncached, priced at what they were billed (the input price, or
 * the cache-write price when they were written again) minus the cache-read price they would have had.
 */
import type { ModelInfo } from "../models/types.js"
import type { CacheScheme } from "./schemes.js"

/** US dollars `missed` tokens added against reading them from the cache (0 without catalog prices). */
export function addedCost(
  model: ModelInfo,
  mode: CacheScheme["mode"],
  missed: number,
  written: boolean,
  ttl?: string,
): number {
  const prices = model.prices
  if (!prices || missed <= 0) return 0
  const read = prices.cacheRead ?? prices.input
  const write = ttl === "1h" ? (prices.cacheWriteLong ?? prices.cacheWrite) : prices.cacheWrite
  const billed =
    (mode === "breakpoints" && written) || (mode === "automatic" && write !== undefined)
      ? (write ?? prices.input)
      : prices.input
  return (missed * (billed - read)) / 1_000_000
}
