/**
 * The replay server's prompt-cache simulation (opt in with `cache: "simulate"`): each answer's usage is
 * billed the way the provider would bill it, from the request's prefix shared with earlier requests. The
 * request is laid out by the cache explainer's layout code (src/cache), so both agree on units and tokens.
 *
 * Breakpoint schemes (Anthropic): a request writes an entry at each `cache_control` breakpoint whose prefix
 * reaches the model's minimum; a later request reads the longest live entry found at one of its breakpoints
 * or up to the scheme's lookback (20 units) before one. Automatic schemes (OpenAI, Gemini, DeepSeek): every
 * prefix is an entry, read in the scheme's steps from the minimum. An entry lives for its lifetime (5 minutes
 * by default, `ttl: "1h"` on a breakpoint for an hour) on the supplied clock, and a read renews it.
 */
import { createHash } from "node:crypto"
import { type CacheLayout, cacheLayout, type TokenMemo } from "../cache/cache-layout.js"
import { automaticRead, lifetimeMs, minimumTokens } from "../cache/schemes.js"
import type { TokenCounter } from "../history/tokens.js"
import { resolveModel } from "../models/resolve.js"
import type { WireFormat } from "../models/types.js"

/** The usage the simulated provider bills: `input` excludes cache reads and writes. */
export interface SimulatedUsage {
  input: number
  cacheRead: number
  cacheWrite: number
}

/** Options of a cache simulation. */
export interface CacheSimulationOptions {
  counter: TokenCounter
  /** The clock, in milliseconds; `Date.now` by default. */
  now?: () => number
}

/** Entries kept before expired ones are swept. */
const SWEEP_AT = 100_000

/** A provider's prompt cache, shared by every request the replay server answers. */
export class CacheSimulation {
  /** Prefix key → when the entry expires (ms on the clock). */
  private readonly entries = new Map<string, number>()
  private readonly memo: TokenMemo = new Map()
  private readonly now: () => number

  constructor(private readonly options: CacheSimulationOptions) {
    this.now = options.now ?? Date.now
  }

  /** Entries alive now. */
  get size(): number {
    const at = this.now()
    let n = 0
    for (const expires of this.entries.values()) if (expires > at) n++
    return n
  }

  /** Bills one request (and records the entries it reads and writes). `model` when the body names none. */
  bill(format: WireFormat, body: Record<string, unknown>, model?: string): SimulatedUsage {
    const id = typeof body.model === "string" ? body.model : (model ?? "unknown")
    const info = resolveModel(id, {}).model
    const layout = cacheLayout(format, body, info, this.options.counter, this.memo)
    const keys = prefixKeys(`${format}:${info.id}`, layout)
    const at = this.now()
    if (this.entries.size > SWEEP_AT) for (const [k, expires] of this.entries) if (expires <= at) this.entries.delete(k)
    const alive = (i: number) => (this.entries.get(keys[i]!) ?? 0) > at
    const minimum = minimumTokens(layout.scheme, info)
    const lifetime = (ttl?: string) => lifetimeMs(layout.scheme, info, ttl ?? layout.requestedTtl)
    if (layout.scheme.mode === "automatic") {
      let longest = -1
      for (let i = keys.length - 1; i >= 0; i--)
        if (alive(i)) {
          longest = i
          break
        }
      const read = longest < 0 ? 0 : automaticRead(layout.scheme, minimum, layout.ends[longest]!)
      const expires = at + lifetime()
      for (let i = 0; i < keys.length; i++) if (layout.ends[i]! >= minimum) this.entries.set(keys[i]!, expires)
      return { input: layout.total - read, cacheRead: read, cacheWrite: 0 }
    }
    let read = 0
    let readAt = -1
    for (const b of layout.breakpoints) {
      for (let i = b; i >= Math.max(0, b - layout.scheme.lookback); i--) {
        if (!alive(i)) continue
        if (layout.ends[i]! > read) {
          read = layout.ends[i]!
          readAt = i
        }
        break
      }
    }
    if (readAt >= 0) this.entries.set(keys[readAt]!, Math.max(this.entries.get(keys[readAt]!)!, at + lifetime()))
    let written = 0
    for (const b of layout.breakpoints) {
      const end = layout.ends[b]!
      if (end < minimum) continue
      const expires = at + lifetime(layout.segments[b]!.breakpoint)
      this.entries.set(keys[b]!, Math.max(this.entries.get(keys[b]!) ?? 0, expires))
      written = Math.max(written, end)
    }
    const cacheWrite = Math.max(0, written - read)
    return { input: layout.total - read - cacheWrite, cacheRead: read, cacheWrite }
  }
}

/** A key per unit naming the whole prefix up to and including it (the units' hashes chained). */
function prefixKeys(start: string, layout: CacheLayout): string[] {
  const keys: string[] = []
  let key = start
  for (const s of layout.segments) {
    key = createHash("sha1").update(key).update("\u0000").update(s.hash).digest("base64")
    keys.push(key)
  }
  return keys
}
