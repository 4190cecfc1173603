/**
 * The Redis state store against a real redis-server: it answers as the memory store does for any sequence of
 * operations, its compare-and-set lets exactly one of several racing instances save, and a Redis that is down,
 * refuses the password or hangs gives a one-line error at start and degraded (never stuck) commands later, with no
 * credential in any message.
 */
import fc from "fast-check"
import { Redis } from "ioredis"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { PromptlineError } from "../errors.js"
import { RedisStateStore } from "./redis-state-store.js"
import { MemoryStateStore, type StateStore, USAGE_COUNTERS } from "./state-store.js"
import { type RedisServer, redisServerOrSkip, startRedis } from "./test-helpers/redis-server.js"

const binary = redisServerOrSkip()
const PASSWORD = "pw-fake-redis-0123456789"

let redis: RedisServer
let prefixes = 0
/** A store on the test server under a prefix of its own (so tests and property runs do not meet). */
const open = (options: { onDegraded?: (e: Error) => void; prefix?: string; timeoutMs?: number } = {}) =>
  RedisStateStore.connect(
    {
      url: redis.url,
      keyPrefix: options.prefix ?? `t${++prefixes}:`,
      ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    },
    options.onDegraded ? { onDegraded: options.onDegraded } : {},
  )

describe.skipIf(!binary)("the Redis state store (a real redis-server)", () => {
  beforeAll(async () => {
    redis = await startRedis(binary!)
  })
  afterAll(async () => {
    await redis?.stop()
  })

  it("answers every sequence of operations as the memory store does", async () => {
    const key = fc.constantFrom("a", "b", "c|d", "é")
    const name = fc.constantFrom("up", "up:2", 'm"x', "m|y")
    const op = fc.oneof(
      fc.record({ op: fc.constant("read" as const), key, known: fc.option(fc.nat(3), { nil: undefined }) }),
      fc.record({ op: fc.constant("save" as const), key, state: fc.string({ maxLength: 20 }), expected: fc.nat(3) }),
      fc.record({
        op: fc.constant("usage" as const),
        day: fc.constantFrom("2026-12-01", "2026-12-02"),
        upstream: name,
        model: name,
        n: fc.nat(1000),
      }),
      fc.record({ op: fc.constant("fail" as const), upstream: name }),
      fc.record({ op: fc.constant("open" as const), upstream: name, ahead: fc.integer({ min: -5, max: 5 }) }),
      fc.record({ op: fc.constant("close" as const), upstream: name }),
      fc.record({ op: fc.constant("circuit" as const), upstream: name }),
    )
    // A fixed `now`; windows and open times an hour long, so nothing expires while a run lasts.
    const now = 1_800_000_000_000
    const hour = 3_600_000
    type Op = typeof op extends fc.Arbitrary<infer T> ? T : never
    const apply = (store: StateStore, o: Op): Promise<unknown> => {
      switch (o.op) {
        case "read":
          return store.conversation(o.key, o.known)
        case "save":
          return store.saveConversation(o.key, o.state, o.expected)
        case "usage":
          return store
            .addUsage(o.day, o.upstream, o.model, {
              requests: 1,
              input: o.n,
              output: 2,
              cacheRead: o.n * 3,
              cacheWrite: 0,
            })
            .then(() => store.usage(o.day))
        case "fail":
          return store.noteFailure(o.upstream, hour, now)
        case "open":
          return store.openCircuit(o.upstream, now + o.ahead * hour, now).then(() => store.circuit(o.upstream, now))
        case "close":
          return store.closeCircuit(o.upstream)
        case "circuit":
          return store.circuit(o.upstream, now)
      }
    }
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 30 }), async (ops) => {
        const memory = new MemoryStateStore()
        const shared = await open()
        try {
          for (const o of ops) expect(await apply(shared, o)).toEqual(await apply(memory, o))
        } finally {
          await shared.close()
        }
      }),
      { numRuns: 40 },
    )
  })

  it("lets exactly one of several instances racing on a conversation save; the others read the winner's", async () => {
    const prefix = `race${++prefixes}:`
    const stores = await Promise.all(Array.from({ length: 6 }, () => open({ prefix })))
    try {
      const versions = await Promise.all(stores.map((s, i) => s.saveConversation("k", `state ${i}`, 0)))
      const won = versions.flatMap((v, i) => (v === undefined ? [] : [i]))
      expect(won).toHaveLength(1)
      expect(versions[won[0]!]).toBe(1)
      for (const s of stores) expect(await s.conversation("k")).toEqual({ version: 1, state: `state ${won[0]}` })
      // A second round on version 1: again one winner, version 2.
      const next = await Promise.all(stores.map((s, i) => s.saveConversation("k", `next ${i}`, 1)))
      expect(next.filter((v) => v !== undefined)).toEqual([2])
    } finally {
      for (const s of stores) await s.close()
    }
  })

  it("keeps conversations for the configured time after their last use, under the key prefix", async () => {
    const store = await RedisStateStore.connect({ url: redis.url, keyPrefix: "ttl:", ttlSeconds: 60 })
    const raw = new Redis(redis.url)
    try {
      expect(await store.saveConversation("k", "s", 0)).toBe(1)
      const ttl = await raw.pttl("ttl:conv:k")
      expect(ttl).toBeGreaterThan(0)
      expect(ttl).toBeLessThanOrEqual(60_000)
      await raw.pexpire("ttl:conv:k", 5_000)
      expect(await store.conversation("k", 1)).toEqual({ version: 1 })
      expect(await raw.pttl("ttl:conv:k")).toBeGreaterThan(5_000)
      // Another prefix is another store.
      const other = await open({ prefix: "other:" })
      expect(await other.conversation("k")).toBeUndefined()
      await other.close()
      expect(await raw.hgetall("ttl:usage:2026-12-01")).toEqual({})
      await store.addUsage("2026-12-01", "up", "m", { requests: 1, input: 5, output: 0, cacheRead: 0, cacheWrite: 0 })
      expect(Object.keys(await raw.hgetall("ttl:usage:2026-12-01")).sort()).toEqual([
        '["up","m","cacheRead"]',
        '["up","m","cacheWrite"]',
        '["up","m","input"]',
        '["up","m","output"]',
        '["up","m","requests"]',
      ])
      expect(USAGE_COUNTERS).toContain("input")
    } finally {
      raw.disconnect()
      await store.close()
    }
  })

  it("refuses to start on a Redis that is down, in one line without the password", async () => {
    const down = await startRedis(binary!)
    await down.stop()
    const url = `redis://someone:${PASSWORD}@127.0.0.1:${down.port}/0`
    const error = await RedisStateStore.connect({ url }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(PromptlineError)
    const { code, message } = error as PromptlineError
    expect(code).toBe("gateway-state-unreachable")
    expect(message).toContain(`redis://[redacted]@127.0.0.1:${down.port}/0`)
    expect(message).toContain("ECONNREFUSED")
    expect(message).not.toContain(PASSWORD)
    expect(message).not.toContain("\n")
  })

  it("refuses a wrong password without quoting it", async () => {
    const locked = await startRedis(binary!, { password: PASSWORD })
    try {
      const wrong = `redis://default:${PASSWORD}-not@127.0.0.1:${locked.port}`
      const error = (await RedisStateStore.connect({ url: wrong }).catch((e: unknown) => e)) as Error
      expect(error.message).toMatch(/WRONGPASS|NOAUTH|invalid/i)
      expect(error.message).not.toContain(PASSWORD)
      const right = await RedisStateStore.connect({ url: locked.url })
      expect(right.where).toBe(`redis://[redacted]@127.0.0.1:${locked.port}`)
      expect(await right.saveConversation("k", "s", 0)).toBe(1)
      await right.close()
    } finally {
      await locked.stop()
    }
  })

  it("fails commands fast while Redis is down or hung, reports the outage once, and recovers", async () => {
    const own = await startRedis(binary!)
    const reports: Error[] = []
    const store = await RedisStateStore.connect(
      { url: own.url, timeoutMs: 200 },
      { onDegraded: (e) => reports.push(e) },
    )
    try {
      expect(await store.saveConversation("k", "s", 0)).toBe(1)
      // Hung: every command ends at the timeout, with one report.
      own.pause()
      for (let i = 0; i < 3; i++)
        await expect(store.conversation("k")).rejects.toMatchObject({ code: "gateway-state-degraded" })
      expect(reports).toHaveLength(1)
      expect(reports[0]!.message).toMatch(
        /^shared state degraded: the Redis store at redis:\/\/127\.0\.0\.1:\d+ failed/,
      )
      own.resume()
      // Down: commands fail at once (nothing is queued), still one report for the outage.
      await own.stop()
      await expect(
        store.addUsage("d", "u", "m", { requests: 1, input: 1, output: 1, cacheRead: 0, cacheWrite: 0 }),
      ).rejects.toMatchObject({
        code: "gateway-state-degraded",
      })
      await expect(store.circuit("u", 0)).rejects.toMatchObject({ code: "gateway-state-degraded" })
      expect(reports).toHaveLength(1)
      // Back (empty: no persistence): the client reconnects by itself and the store answers again.
      await own.restart()
      let answer: unknown
      while (answer === undefined) {
        answer = await store.circuit("u", 0).catch(() => undefined)
        // Polled, not timed: the client reconnects on its own schedule.
        if (answer === undefined) await new Promise((resolve) => setTimeout(resolve, 50))
      }
      expect(answer).toEqual({ failures: 0 })
      // A new outage is reported again.
      await own.stop()
      await expect(store.noteFailure("u", 1000, 0)).rejects.toMatchObject({ code: "gateway-state-degraded" })
      expect(reports).toHaveLength(2)
    } finally {
      await store.close()
      await own.stop()
    }
  })
})
