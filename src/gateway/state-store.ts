/**
 * The state gateway instances share: the change log of each fitted conversation (so every instance cuts it in the
 * same place), usage counters per day, upstream and model, and each upstream's circuit-breaker state. Two stores
 * speak this interface: `MemoryStateStore`, the embedded default (one process, bounded), and the Redis store
 * (`redis-state-store.ts`, loaded only when the config asks for it), which several instances behind a load
 * balancer share. The store only keeps what it is given; what a value means is its user's business.
 */
import { setBounded } from "../bounded-map.js"
import type { StateStoreConfig } from "../config/gateway.js"
import type { GatewayRecord } from "./record.js"

/** How many conversations, usage rows and upstreams a memory store keeps by default (least recently used out). */
export const DEFAULT_CONVERSATIONS = 1000

/** A conversation's stored state and its version (1 for the first save, one more for each save after). */
export interface StoredConversation {
  version: number
  /** The state as saved; absent when the caller already holds this version (`known`). */
  state?: string
}

/** Token counts of one upstream and model on one day. */
export interface UsageCounts {
  requests: number
  input: number
  output: number
  cacheRead: number
  cacheWrite: number
}

/** One row of a day's usage. */
export interface UsageRow extends UsageCounts {
  upstream: string
  model: string
}

/** The counter names of a usage row, in the order rows and stores list them. */
export const USAGE_COUNTERS = ["requests", "input", "output", "cacheRead", "cacheWrite"] as const

/** An upstream's circuit-breaker state as stored. */
export interface CircuitState {
  /** Failures noted in the current window (0 when the window expired or none was noted). */
  failures: number
  /** Until when (ms since the epoch) the circuit stays open; absent when it is closed. */
  openUntil?: number
}

/** The operations a store for state shared between gateway instances offers. */
export interface StateStore {
  /** `memory` (this process only) or `redis` (shared). */
  readonly kind: "memory" | "redis"
  /** Where the state lives, for messages: `memory`, or the Redis URL without its credentials. */
  readonly where: string

  /**
   * The conversation's stored state, undefined when none is stored (never saved, expired or evicted). With
   * `known`, the version the caller holds: when it is still the stored one, the state is left out of the answer.
   */
  conversation(key: string, known?: number): Promise<StoredConversation | undefined>
  /**
   * Saves the conversation's state if its stored version is still `expected` (0: nothing stored), as one atomic
   * compare-and-set, so two instances racing on a conversation never overwrite each other's save. Returns the new
   * version, or undefined when another save came first (the caller then reads the winner's state).
   */
  saveConversation(key: string, state: string, expected: number): Promise<number | undefined>

  /** Adds a request's counts to its day, upstream and model, atomically (`day` is `YYYY-MM-DD`). */
  addUsage(day: string, upstream: string, model: string, counts: UsageCounts): Promise<void>
  /** The usage of a day, one row per upstream and model, sorted by upstream then model. */
  usage(day: string): Promise<UsageRow[]>

  /**
   * Circuit breaker, failure side: notes one failure of `upstream` and returns the failures of its current
   * window. A window starts with the first failure after the last one expired and lasts `windowMs`; `now` is the
   * caller's clock (ms since the epoch). A breaker opens the circuit when the count reaches its threshold.
   */
  noteFailure(upstream: string, windowMs: number, now: number): Promise<number>
  /** Circuit breaker: opens `upstream`'s circuit until `until` (ms since the epoch); it closes by itself then. */
  openCircuit(upstream: string, until: number, now: number): Promise<void>
  /** Circuit breaker: `upstream`'s failures in the current window and, while open at `now`, until when. */
  circuit(upstream: string, now: number): Promise<CircuitState>
  /** Circuit breaker: closes `upstream`'s circuit and forgets its failures (after a request that succeeded). */
  closeCircuit(upstream: string): Promise<void>

  /** Lets go of the connection, if any. */
  close(): Promise<void>
}

/** Options of a store opened from the config. */
export interface StateStoreOptions {
  /**
   * Hears that the shared state failed (once, until it answers again); the caller goes on with this instance's
   * own state. The error names the store without its credentials.
   */
  onDegraded?: (error: Error) => void
}

/** The store the `gateway.store` config asks for: memory (the default) or Redis, connected. */
export async function openStateStore(
  config: StateStoreConfig | undefined,
  options: StateStoreOptions = {},
): Promise<StateStore> {
  if (config?.kind !== "redis" || config.url === undefined) return new MemoryStateStore()
  const { RedisStateStore } = await import("./redis-state-store.js")
  return RedisStateStore.connect({ ...config, url: config.url }, options)
}

/** The day (`YYYY-MM-DD`, UTC) of a time in ms since the epoch. */
export function usageDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10)
}

/** Counts a finished request's usage in the store (a request without usage or upstream counts nothing). */
export function addRecordUsage(store: StateStore, record: GatewayRecord): Promise<void> {
  const { usage, upstream } = record
  if (!usage || !upstream) return Promise.resolve()
  return store.addUsage(usageDay(record.startedAt), upstream.name, upstream.model, { requests: 1, ...usage })
}

/** Usage rows sorted by upstream, then model. */
export function sortUsage(rows: UsageRow[]): UsageRow[] {
  return rows.sort((a, b) => (a.upstream === b.upstream ? compare(a.model, b.model) : compare(a.upstream, b.upstream)))
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/**
 * The embedded store: this process's memory, each part bounded (the least recently used conversation, usage row
 * or upstream goes first). What it holds is lost with the process and seen by no other instance.
 */
export class MemoryStateStore implements StateStore {
  readonly kind = "memory"
  readonly where = "memory"
  readonly #conversations = new Map<string, { version: number; state: string }>()
  readonly #usage = new Map<string, UsageRow>()
  readonly #circuits = new Map<string, { failures: number; windowEnds: number; openUntil?: number }>()

  constructor(readonly limit = DEFAULT_CONVERSATIONS) {}

  async conversation(key: string, known?: number): Promise<StoredConversation | undefined> {
    const stored = this.#conversations.get(key)
    if (!stored) return undefined
    this.#conversations.delete(key)
    this.#conversations.set(key, stored)
    return stored.version === known ? { version: stored.version } : { ...stored }
  }

  async saveConversation(key: string, state: string, expected: number): Promise<number | undefined> {
    const version = this.#conversations.get(key)?.version ?? 0
    if (version !== expected) return undefined
    this.#conversations.delete(key)
    setBounded(this.#conversations, key, { version: version + 1, state }, this.limit)
    return version + 1
  }

  async addUsage(day: string, upstream: string, model: string, counts: UsageCounts): Promise<void> {
    const key = JSON.stringify([day, upstream, model])
    const row = this.#usage.get(key) ?? {
      upstream,
      model,
      requests: 0,
      input: 0,
      output: 0,
      cacheRead: 0,
      cacheWrite: 0,
    }
    for (const name of USAGE_COUNTERS) row[name] += counts[name]
    this.#usage.delete(key)
    setBounded(this.#usage, key, row, this.limit)
  }

  async usage(day: string): Promise<UsageRow[]> {
    const rows: UsageRow[] = []
    for (const [key, row] of this.#usage) if ((JSON.parse(key) as string[])[0] === day) rows.push({ ...row })
    return sortUsage(rows)
  }

  async noteFailure(upstream: string, windowMs: number, now: number): Promise<number> {
    const was = this.#circuits.get(upstream)
    const open = was?.openUntil !== undefined && was.openUntil > now ? { openUntil: was.openUntil } : {}
    const failures = was && was.windowEnds > now ? was.failures + 1 : 1
    const windowEnds = was && was.windowEnds > now ? was.windowEnds : now + windowMs
    this.#circuits.delete(upstream)
    setBounded(this.#circuits, upstream, { failures, windowEnds, ...open }, this.limit)
    return failures
  }

  async openCircuit(upstream: string, until: number, now: number): Promise<void> {
    const was = this.#circuits.get(upstream)
    const failures = was && was.windowEnds > now ? was.failures : 0
    this.#circuits.delete(upstream)
    setBounded(this.#circuits, upstream, { failures, windowEnds: was?.windowEnds ?? now, openUntil: until }, this.limit)
  }

  async circuit(upstream: string, now: number): Promise<CircuitState> {
    const was = this.#circuits.get(upstream)
    if (!was) return { failures: 0 }
    const failures = was.windowEnds > now ? was.failures : 0
    return was.openUntil !== undefined && was.openUntil > now ? { failures, openUntil: was.openUntil } : { failures }
  }

  async closeCircuit(upstream: string): Promise<void> {
    this.#circuits.delete(upstream)
  }

  async close(): Promise<void> {}
}
