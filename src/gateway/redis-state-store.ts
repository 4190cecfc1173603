/**
 * The state store several gateway instances share through Redis, with the `ioredis` client (an optional peer,
 * loaded when a config asks for this store). Every command is bounded by a short timeout and none is queued while
 * the connection is down, so a Redis that fails or hangs costs a request at most that timeout: the caller then goes
 * on with its own instance's state, and the store reports once that the shared state is degraded (again after each
 * recovery). The client reconnects in the background.
 *
 * Keys, each under the configured prefix: `conv:{conversation key}` a hash of `v` (version) and `s` (state),
 * expiring `ttlSeconds` after its last read or save; `usage:{day}` a hash of counters whose fields are the JSON
 * array `[upstream, model, counter]`, kept 90 days; `circuit:{upstream}:failures` a counter expiring with its
 * window; `circuit:{upstream}:open` the time until which the circuit is open, expiring then.
 */
import type { Redis } from "ioredis"
import type { StateStoreConfig } from "../config/gateway.js"
import { PromptlineError } from "../errors.js"
import { loadOptionalPeer, type OptionalPeer } from "../optional-peer.js"
import { redactText, redactUrlCredentials } from "../redact.js"
import {
  type CircuitState,
  type StateStore,
  type StateStoreOptions,
  type StoredConversation,
  sortUsage,
  USAGE_COUNTERS,
  type UsageCounts,
  type UsageRow,
} from "./state-store.js"

/** The settings of a Redis store (`gateway.store` with `"kind": "redis"`). */
export type RedisStoreConfig = Omit<StateStoreConfig, "kind" | "url"> & { url: string }

/** The Redis client package, an optional peer of the gateway's Redis store. */
export const IOREDIS_PEER: OptionalPeer = { name: "ioredis", range: ">=6 <7", entry: 'the gateway\'s "redis" store' }

/** How long a command (or connecting) may take by default, in ms. */
export const DEFAULT_REDIS_TIMEOUT_MS = 500
/** How long a conversation's state is kept after its last use by default, in seconds (a day). */
export const DEFAULT_CONVERSATION_TTL_SECONDS = 86_400
/** The prefix of every key by default. */
export const DEFAULT_KEY_PREFIX = "promptline:"
/** How long a day's usage counters are kept, in ms (90 days). */
const USAGE_TTL_MS = 90 * 86_400_000

/** Reads a conversation: nothing when none is stored, the version alone when the caller holds it, else both. */
const READ_CONVERSATION = `
local v = redis.call('HGET', KEYS[1], 'v')
if not v then return nil end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
if v == ARGV[1] then return {v} end
return {v, redis.call('HGET', KEYS[1], 's')}
`

/** Saves a conversation if its stored version (0 when none) is the expected one: the new version, else 0. */
const SAVE_CONVERSATION = `
local v = tonumber(redis.call('HGET', KEYS[1], 'v') or '0')
if v ~= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'v', v + 1, 's', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return v + 1
`

/** Counts one failure; the first of a window sets the window's expiry. */
const NOTE_FAILURE = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n
`

/** The client with this store's scripts (ioredis `defineCommand`: EVALSHA, loading the script when Redis lacks it). */
interface ScriptedClient extends Redis {
  plReadConversation(key: string, known: string, ttlMs: number): Promise<[string, string?] | null>
  plSaveConversation(key: string, expected: number, state: string, ttlMs: number): Promise<number>
  plNoteFailure(key: string, windowMs: number): Promise<number>
}

/** The shared-state store on a Redis server. */
export class RedisStateStore implements StateStore {
  readonly kind = "redis"
  readonly #client: ScriptedClient
  readonly #secrets: string[]
  readonly #ttlMs: number
  readonly #onDegraded: ((error: Error) => void) | undefined
  #degraded = false
  #closed = false

  private constructor(
    client: ScriptedClient,
    readonly where: string,
    secrets: string[],
    ttlMs: number,
    options: StateStoreOptions,
  ) {
    this.#client = client
    this.#secrets = secrets
    this.#ttlMs = ttlMs
    this.#onDegraded = options.onDegraded
  }

  /**
   * Connects to the configured Redis; throws `gateway-state-unreachable` (one line naming the URL without its
   * credentials and the cause) when it does not answer within the timeout, and `peer-missing` without `ioredis`.
   */
  static async connect(config: RedisStoreConfig, options: StateStoreOptions = {}) {
    const { Redis } = await loadOptionalPeer(IOREDIS_PEER, () => import("ioredis"))
    const timeout = config.timeoutMs ?? DEFAULT_REDIS_TIMEOUT_MS
    const where = redactUrlCredentials(config.url)
    const secrets = credentialsOf(config.url)
    const client = new Redis(config.url, {
      lazyConnect: true,
      keyPrefix: config.keyPrefix ?? DEFAULT_KEY_PREFIX,
      connectTimeout: timeout,
      commandTimeout: timeout,
      // Nothing waits for a connection that is down: a command then fails at once and the request goes on.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: (times) => Math.min(times * 200, 2000),
    }) as ScriptedClient
    client.defineCommand("plReadConversation", { numberOfKeys: 1, lua: READ_CONVERSATION })
    client.defineCommand("plSaveConversation", { numberOfKeys: 1, lua: SAVE_CONVERSATION })
    client.defineCommand("plNoteFailure", { numberOfKeys: 1, lua: NOTE_FAILURE })
    let last: Error | undefined
    const early = (error: Error) => {
      last = error
    }
    client.on("error", early)
    try {
      await client.connect()
      await client.ping()
    } catch (error) {
      client.disconnect()
      const cause = redactText((last ?? (error as Error)).message, secrets)
      throw new PromptlineError(
        "gateway-state-unreachable",
        `cannot reach the shared state store at ${where} (gateway.store.url): ${cause}; start Redis there, or set gateway.store to { "kind": "memory" }`,
        { cause: error },
      )
    }
    client.off("error", early)
    const store = new RedisStateStore(
      client,
      where,
      secrets,
      (config.ttlSeconds ?? DEFAULT_CONVERSATION_TTL_SECONDS) * 1000,
      options,
    )
    // A lost connection is reported here (an unheard error event would be printed by ioredis); commands fail fast.
    client.on("error", (error: Error) => store.#failed(error))
    client.on("ready", () => store.#answered())
    return store
  }

  async conversation(key: string, known?: number): Promise<StoredConversation | undefined> {
    const found = await this.#run(() =>
      this.#client.plReadConversation(`conv:${key}`, String(known ?? ""), this.#ttlMs),
    )
    if (!found) return undefined
    const version = Number(found[0])
    return found.length > 1 ? { version, state: found[1] ?? "" } : { version }
  }

  async saveConversation(key: string, state: string, expected: number): Promise<number | undefined> {
    const version = await this.#run(() => this.#client.plSaveConversation(`conv:${key}`, expected, state, this.#ttlMs))
    return version > 0 ? version : undefined
  }

  async addUsage(day: string, upstream: string, model: string, counts: UsageCounts): Promise<void> {
    const key = `usage:${day}`
    await this.#run(async () => {
      const batch = this.#client.multi()
      for (const name of USAGE_COUNTERS) batch.hincrby(key, JSON.stringify([upstream, model, name]), counts[name])
      batch.pexpire(key, USAGE_TTL_MS)
      const results = (await batch.exec()) ?? []
      const failed = results.find(([error]) => error)
      if (failed) throw failed[0]
    })
  }

  async usage(day: string): Promise<UsageRow[]> {
    const fields = await this.#run(() => this.#client.hgetall(`usage:${day}`))
    const rows = new Map<string, UsageRow>()
    for (const [field, value] of Object.entries(fields)) {
      const [upstream, model, name] = JSON.parse(field) as [string, string, keyof UsageCounts]
      const id = JSON.stringify([upstream, model])
      let row = rows.get(id)
      if (!row) {
        row = { upstream, model, requests: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }
        rows.set(id, row)
      }
      if ((USAGE_COUNTERS as readonly string[]).includes(name)) row[name] = Number(value)
    }
    return sortUsage([...rows.values()])
  }

  /** The window runs on Redis's clock (the key expires `windowMs` after the first failure), not on `_now`. */
  noteFailure(upstream: string, windowMs: number, _now: number): Promise<number> {
    return this.#run(() => this.#client.plNoteFailure(`circuit:${upstream}:failures`, windowMs))
  }

  async openCircuit(upstream: string, until: number, now: number): Promise<void> {
    const key = `circuit:${upstream}:open`
    // Open until a time already past: closed.
    if (until <= now) await this.#run(() => this.#client.del(key))
    else await this.#run(() => this.#client.set(key, String(until), "PX", until - now))
  }

  async circuit(upstream: string, now: number): Promise<CircuitState> {
    const [failures, open] = await this.#run(() =>
      this.#client.mget(`circuit:${upstream}:failures`, `circuit:${upstream}:open`),
    )
    const until = Number(open ?? Number.NaN)
    return until > now ? { failures: Number(failures ?? 0), openUntil: until } : { failures: Number(failures ?? 0) }
  }

  async closeCircuit(upstream: string): Promise<void> {
    await this.#run(() => this.#client.del(`circuit:${upstream}:failures`, `circuit:${upstream}:open`))
  }

  async close(): Promise<void> {
    this.#closed = true
    this.#client.disconnect()
  }

  /** Runs a command; a failure is reported (once per outage) and thrown as `gateway-state-degraded`. */
  async #run<T>(command: () => Promise<T>): Promise<T> {
    try {
      const result = await command()
      this.#answered()
      return result
    } catch (error) {
      throw this.#failed(error as Error)
    }
  }

  #answered(): void {
    this.#degraded = false
  }

  /** The failure as this store tells it (no credentials), reported when it starts an outage. */
  #failed(error: Error): PromptlineError {
    const reason = redactText(error.message, this.#secrets)
    const failure = new PromptlineError(
      "gateway-state-degraded",
      `shared state degraded: the Redis store at ${this.where} failed (${reason}); requests go on with this instance's own state`,
    )
    if (!this.#degraded && !this.#closed) {
      this.#degraded = true
      try {
        this.#onDegraded?.(failure)
      } catch {
        // The listener's own failure has nowhere to go.
      }
    }
    return failure
  }
}

/** The user name and password a URL carries (raw and decoded), for redaction. */
function credentialsOf(url: string): string[] {
  const userinfo = /^[a-z][a-z0-9+.-]*:\/\/([^/?#\s]*)@/i.exec(url)?.[1]
  if (!userinfo) return []
  const parts = [userinfo, ...userinfo.split(":")]
  const decoded = parts.map((p) => {
    try {
      return decodeURIComponent(p)
    } catch {
      return p
    }
  })
  return [...new Set([...parts, ...decoded])].filter((s) => s !== "")
}
