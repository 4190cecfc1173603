/**
 * The circuit breaker on its own, over a memory state store and a clock the test moves: the policy's states, the
 * doubling rest and its cap (property-tested), one probe at a time, and a probe let go when its request ended
 * without an answer either way.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { CircuitBreaker } from "./breaker.js"
import { type BreakerPolicy, DEFAULT_BREAKER } from "./settings.js"
import { MemoryStateStore } from "./state-store.js"
import type { UpstreamCircuit } from "./status.js"

function breaker(policy: BreakerPolicy = DEFAULT_BREAKER) {
  let now = 1_000_000
  const seen: UpstreamCircuit[] = []
  const store = new MemoryStateStore()
  const b = new CircuitBreaker(
    store,
    () => policy,
    () => now,
    (_u, c) => seen.push(c),
  )
  return { b, store, seen, at: () => now, advance: (ms: number) => (now += ms) }
}

describe("the circuit breaker", () => {
  it("opens after `failures` in a row, forgets them on a success, probes once when the rest is over", async () => {
    const { b, advance } = breaker({ ...DEFAULT_BREAKER, failures: 2 })
    const first = await b.admit("u")
    await b.failed("u", first)
    await b.succeeded("u", await b.admit("u"))
    await b.failed("u", await b.admit("u"))
    expect((await b.admit("u")).state).toBe("closed")
    await b.failed("u", await b.admit("u"))
    expect((await b.admit("u")).state).toBe("open")
    advance(DEFAULT_BREAKER.cooldownMs)
    const probe = await b.admit("u")
    expect(probe.state).toBe("half-open")
    expect((await b.admit("u")).state).toBe("open")
    await b.succeeded("u", probe)
    expect(await b.admit("u")).toEqual({ state: "closed", failures: 0 })
  })

  it("lets the next request probe when a probe ended without an answer either way", async () => {
    const { b, advance } = breaker({ ...DEFAULT_BREAKER, failures: 1 })
    await b.failed("u", await b.admit("u"))
    advance(DEFAULT_BREAKER.cooldownMs)
    const probe = await b.admit("u")
    expect(probe.state).toBe("half-open")
    b.released("u", probe)
    expect((await b.admit("u")).state).toBe("half-open")
  })

  it("rests twice as long after each failed probe, never longer than the cap", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 100_000 }),
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 1, max: 12 }),
        async (cooldownMs, factor, probes) => {
          const policy = { failures: 1, windowMs: 1_000, cooldownMs, maxCooldownMs: cooldownMs * factor }
          const { b, store, at, advance } = breaker(policy)
          await b.failed("u", await b.admit("u"))
          let rest = cooldownMs
          for (let i = 0; i < probes; i++) {
            const until = (await store.circuit("u", at())).openUntil!
            expect(until - at()).toBe(rest)
            advance(rest)
            const probe = await b.admit("u")
            expect(probe.state).toBe("half-open")
            await b.failed("u", probe)
            rest = Math.min(rest * 2, policy.maxCooldownMs)
          }
        },
      ),
      { numRuns: 50 },
    )
  })
})
