/**
 * The cache explainer: for a request and the previous request of its conversation, what the provider
 * should have read from its prompt cache, what it reported, and (for a miss) the cause and what the miss
 * cost against the counterfactual hit. The clock is an input (`at` on each request); nothing here reads it.
 */
import type { TokenCounter } from "../history/tokens.js"
import { resolveModel } from "../models/resolve.js"
import type { ModelInfo, WireFormat } from "../models/types.js"
import type { Usage } from "../providers/stream.js"
import { compareLayouts, type Excerpt, type LayoutComparison } from "./cache-compare.js"
import { type CacheLayout, cacheLayout, type TokenMemo } from "./cache-layout.js"
import { addedCost } from "./cost.js"
import { automaticRead, lifetimeMs, minimumTokens } from "./schemes.js"

/** One request as the explainer sees it: its wire format, the body as sent, and when it was sent. */
export interface CacheRequest {
  format: WireFormat
  body: unknown
  /** When the request was sent, in milliseconds (any epoch, the same for the whole conversation). */
  at: number
  /** The model, when the body does not name it (Gemini puts it in the URL). */
  model?: string
}

/** Why a request read less from the cache than it could have. */
export type MissCause =
  | { kind: "tools-changed"; change: "added" | "removed" | "reordered" | "edited"; tool: string; path: string }
  | { kind: "system-changed"; section: string; path: string; excerpt: Excerpt }
  | {
      kind: "message-changed"
      message: number
      block: number
      path: string
      change: "edit" | "dedup" | "truncation" | "reserialization"
      excerpt: Excerpt
    }
  | { kind: "expired"; gapMs: number; lifetimeMs: number }
  | { kind: "below-minimum"; prefixTokens: number; minimum: number }
  | { kind: "no-breakpoint"; prefixTokens: number }
  | { kind: "evicted"; predicted: number; reported: number }

/** Token figures of one request (in the provider's units when usage was reported, else estimated). */
export interface CacheTokens {
  total: number
  /** Tokens of the prefix shared with the previous request. */
  shared: number
  /** Cache reads predicted from the layout. */
  predictedRead: number
  predictedWrite: number
  /** Reads had nothing changed since the previous request. */
  counterfactualRead: number
  /** Reads and writes the provider reported. */
  reported?: { read: number; write: number; input: number }
}

/** The verdict on one request. */
export interface CacheVerdict {
  verdict: "first" | "hit" | "miss"
  cause?: MissCause
  tokens: CacheTokens
  /** Share of the prompt read from the cache (reported when usage is known, else predicted). */
  cachedShare: number
  /** Tokens the miss left uncached against the counterfactual hit. */
  missedTokens: number
  /** US dollars the miss added against the counterfactual hit (0 when the catalog has no prices). */
  addedCost: number
  /**
   * The first difference from the previous request, whether or not it cost anything (an edit after the last
   * cached unit is a hit, and still named here).
   */
  difference?: Extract<MissCause, { kind: "tools-changed" | "system-changed" | "message-changed" }>
  /** Milliseconds since the previous request of the conversation, and the cache lifetime that applied. */
  gapMs?: number
  lifetimeMs: number
  /**
   * What the layout alone predicted when the provider's usage overruled it: the provider read what the
   * counterfactual hit would have, so the verdict is a hit and the predicted miss is kept here (the layout saw a
   * difference the provider does not cache by).
   */
  predicted?: { verdict: "miss"; cause: MissCause }
  /** Breakpoints of the request: where, and the tokens up to them. */
  breakpoints: { path: string; tokens: number; ttl: string }[]
  model: string
}

/** What the explainer needs besides the requests: a token counter and any user catalog rows. */
export interface ExplainOptions {
  counter: TokenCounter
  models?: readonly ModelInfo[]
}

/** Units whose token counts an explainer remembers before it starts over. */
const MEMO_LIMIT = 200_000

/** Explains requests, remembering each body's layout so a conversation is laid out once per request. */
export class CacheExplainer {
  private readonly layouts = new WeakMap<object, CacheLayout>()
  private readonly memo: TokenMemo = new Map()

  constructor(private readonly options: ExplainOptions) {}

  /** The cache layout of a request (computed once per body object). */
  layout(request: CacheRequest): CacheLayout {
    const key = typeof request.body === "object" && request.body !== null ? request.body : undefined
    const known = key ? this.layouts.get(key) : undefined
    if (known) return known
    const id = request.model ?? modelIdOf(request.body) ?? "unknown"
    const model = resolveModel(id, { models: this.options.models ?? [] }).model
    if (this.memo.size > MEMO_LIMIT) this.memo.clear()
    const layout = cacheLayout(request.format, request.body, model, this.options.counter, this.memo)
    if (key) this.layouts.set(key, layout)
    return layout
  }

  /** The verdict on `current`, given the previous request of its conversation (if any) and the reported usage. */
  explain(previous: CacheRequest | undefined, current: CacheRequest, usage?: Usage): CacheVerdict {
    const now = this.layout(current)
    return verdictOf(
      previous ? this.layout(previous) : undefined,
      now,
      previous ? current.at - previous.at : undefined,
      usage,
      this.options.counter,
    )
  }
}

/** Explains one request against the previous one of its conversation (see `CacheExplainer` to reuse layouts). */
export function explainCache(
  previous: CacheRequest | undefined,
  current: CacheRequest,
  usage: Usage | undefined,
  options: ExplainOptions,
): CacheVerdict {
  return new CacheExplainer(options).explain(previous, current, usage)
}

function modelIdOf(body: unknown): string | undefined {
  const model = (body as { model?: unknown } | null)?.model
  return typeof model === "string" ? model : undefined
}

interface Prediction {
  read: number
  write: number
  counterfactual: number
  /** Index (previous layout) of the entry the counterfactual read ends at, -1 when none. */
  entry: number
  /** The counterfactual had there been no minimum (for the below-minimum cause). */
  unlimited: number
}

function verdictOf(
  prev: CacheLayout | undefined,
  cur: CacheLayout,
  gapMs: number | undefined,
  usage: Usage | undefined,
  counter: TokenCounter,
): CacheVerdict {
  const scheme = cur.scheme
  const minimum = minimumTokens(scheme, cur.model)
  const lifetime = lifetimeMs(scheme, cur.model, (prev ?? cur).requestedTtl)
  const breakpoints = cur.breakpoints.map((i) => ({
    path: cur.segments[i]!.path,
    tokens: cur.ends[i]!,
    ttl: cur.segments[i]!.breakpoint!,
  }))
  const lastBreakpoint = cur.breakpoints.at(-1)
  const writable = lastBreakpoint !== undefined && cur.ends[lastBreakpoint]! >= minimum ? cur.ends[lastBreakpoint]! : 0
  const base = { lifetimeMs: lifetime, breakpoints, model: cur.model.id, missedTokens: 0, addedCost: 0 }
  if (!prev) {
    const write = scheme.mode === "breakpoints" ? writable : 0
    const tokens: CacheTokens = {
      total: cur.total,
      shared: 0,
      predictedRead: 0,
      predictedWrite: write,
      counterfactualRead: 0,
    }
    if (usage) tokens.reported = reportedOf(usage)
    return { ...base, verdict: "first", tokens, cachedShare: usage ? shareOf(usage) : 0 }
  }
  const cmp = compareLayouts(prev, cur, counter)
  const p = predict(prev, cur, cmp, minimum, writable)
  let cause = causeOf(cur, cmp, p, minimum, gapMs ?? 0, lifetime)
  let read = cause?.kind === "expired" ? 0 : p.read
  let counterfactual = cause?.kind === "below-minimum" ? p.unlimited : p.counterfactual
  const tokens: CacheTokens = {
    total: cur.total,
    shared: cmp.sharedTokens,
    predictedRead: read,
    predictedWrite: cause?.kind === "expired" ? writable : p.write,
    counterfactualRead: counterfactual,
  }
  let share = cur.total > 0 ? read / cur.total : 0
  let overruled: MissCause | undefined
  if (usage) {
    const reported = reportedOf(usage)
    tokens.reported = reported
    const reportedTotal = reported.read + reported.write + reported.input
    const scale = reportedTotal > 0 && cur.total > 0 ? reportedTotal / cur.total : 1
    const expected = read * scale
    counterfactual = Math.round(counterfactual * scale)
    if (!cause && reported.read < expected * 0.9 - scheme.unit)
      cause = { kind: "evicted", predicted: Math.round(expected), reported: reported.read }
    else if (cause && reported.read > 0 && reported.read >= counterfactual * 0.95) {
      // The provider read what the counterfactual hit would have: no miss, whatever the layout saw.
      overruled = cause
      cause = undefined
    }
    read = reported.read
    share = shareOf(usage)
  }
  const missedTokens = cause ? Math.max(0, counterfactual - read) : 0
  const written = (tokens.reported?.write ?? tokens.predictedWrite) > 0
  return {
    ...base,
    verdict: cause ? "miss" : "hit",
    ...(cause ? { cause } : {}),
    ...(cmp.change ? { difference: causeOfChange(cmp) } : {}),
    ...(overruled ? { predicted: { verdict: "miss" as const, cause: overruled } } : {}),
    tokens,
    cachedShare: share,
    gapMs,
    missedTokens,
    addedCost: addedCost(cur.model, scheme.mode, missedTokens, written, cur.requestedTtl),
  }
}

function reportedOf(usage: Usage): { read: number; write: number; input: number } {
  return { read: usage.cacheRead, write: usage.cacheWrite, input: usage.input }
}

function shareOf(usage: Usage): number {
  const total = usage.input + usage.cacheRead + usage.cacheWrite
  return total > 0 ? usage.cacheRead / total : 0
}

function predict(
  prev: CacheLayout,
  cur: CacheLayout,
  cmp: LayoutComparison,
  minimum: number,
  writable: number,
): Prediction {
  const scheme = cur.scheme
  const prevEnd = prev.ends.at(-1) ?? 0
  if (scheme.mode === "automatic") {
    const reach = Math.min(prevEnd, cur.total)
    return {
      read: Math.min(automaticRead(scheme, minimum, cmp.sharedTokens), reach),
      write: 0,
      counterfactual: automaticRead(scheme, minimum, reach),
      entry: prev.segments.length - 1,
      unlimited: Math.min(cmp.sharedTokens, reach),
    }
  }
  // Breakpoints: the previous request wrote an entry at each of its breakpoints past the minimum.
  const entries = prev.breakpoints.filter((i) => prev.ends[i]! >= minimum)
  const reachEnd = cur.breakpoints.length > 0 ? cur.ends[cur.breakpoints.at(-1)!]! : 0
  let entry = -1
  for (const e of entries) if (prev.ends[e]! <= reachEnd) entry = e
  let read = 0
  for (const e of entries) {
    if (e >= cmp.firstDifference) continue
    if (cur.breakpoints.some((b) => b >= e && b <= e + scheme.lookback)) read = Math.max(read, cur.ends[e]!)
  }
  const anyEntry = prev.breakpoints.filter((i) => prev.ends[i]! <= reachEnd).at(-1)
  return {
    read,
    write: writable > 0 ? writable - read : 0,
    counterfactual: entry >= 0 ? prev.ends[entry]! : 0,
    entry,
    unlimited: anyEntry !== undefined ? prev.ends[anyEntry]! : cmp.sharedTokens,
  }
}

function causeOf(
  cur: CacheLayout,
  cmp: LayoutComparison,
  p: Prediction,
  minimum: number,
  gapMs: number,
  lifetime: number,
): MissCause | undefined {
  const reusable = Math.max(p.counterfactual, p.read)
  if (gapMs > lifetime && reusable > 0) return { kind: "expired", gapMs, lifetimeMs: lifetime }
  if (p.read < p.counterfactual) {
    if (cmp.change && cmp.firstDifference <= p.entry) return causeOfChange(cmp)
    return { kind: "no-breakpoint", prefixTokens: cmp.sharedTokens }
  }
  if (p.counterfactual > 0) return undefined
  if (cur.scheme.mode === "breakpoints" && cur.breakpoints.length === 0 && cmp.sharedTokens >= minimum)
    return { kind: "no-breakpoint", prefixTokens: cmp.sharedTokens }
  if (p.unlimited > 0 && p.unlimited < minimum) return { kind: "below-minimum", prefixTokens: p.unlimited, minimum }
  return undefined
}

function causeOfChange(cmp: LayoutComparison): NonNullable<CacheVerdict["difference"]> {
  const change = cmp.change!
  if (change.part === "tools")
    return { kind: "tools-changed", change: change.change, tool: change.tool, path: change.path }
  if (change.part === "system")
    return { kind: "system-changed", section: change.section, path: change.path, excerpt: change.excerpt }
  return {
    kind: "message-changed",
    message: change.message,
    block: change.block,
    path: change.path,
    change: change.change,
    excerpt: change.excerpt,
  }
}
