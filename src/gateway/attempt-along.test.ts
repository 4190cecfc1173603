/**
 * The fallback policy's one home, `attemptAlong`, against a model of it: for any route of one to four upstreams and
 * any script of failures per upstream, the upstreams asked, in order, and how the request ends are what the policy
 * says (docs/gateway.md, "Fallbacks"). The breaker is the real one over a memory store; the attempts are scripted.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { ProviderError } from "../providers/errors.js"
import { CircuitBreaker } from "./breaker.js"
import { attemptAlong, type Tried } from "./fallback.js"
import type { RecordAttempt } from "./outcome.js"
import { ClientGone } from "./reply.js"
import type { RouteLink } from "./request.js"
import type { GatewayShared, ServingConfig } from "./serving.js"
import { resolveSettings } from "./settings.js"
import { MemoryStateStore } from "./state-store.js"

/** What one call to an upstream does. */
type Outcome = "ok" | "network" | "400" | "500" | "429-short" | "429-long"

const RETRY_AFTER_MAX_MS = 5

function failureOf(outcome: Exclude<Outcome, "ok">): ProviderError {
  switch (outcome) {
    case "network":
      return new ProviderError("network", "refused")
    case "400":
      return new ProviderError("invalid-request", "bad field", { status: 400 })
    case "500":
      return new ProviderError("server", "down", { status: 500 })
    case "429-short":
      return new ProviderError("rate-limit", "slow down", { status: 429, retryAfterMs: 0 })
    case "429-long":
      return new ProviderError("rate-limit", "slow down", { status: 429, retryAfterMs: 60_000 })
  }
}

/** What the record shows of one call's failure. */
function recorded(name: string, outcome: Exclude<Outcome, "ok">): RecordAttempt {
  const error = failureOf(outcome)
  return {
    upstream: name,
    model: "m",
    ...(error.status !== undefined ? { status: error.status } : {}),
    error: error.kind,
  }
}

/** The policy, written out: the attempts a request makes along `scripts` (one per upstream), and where it ends. */
function expected(scripts: Outcome[][]): { attempts: RecordAttempt[]; answeredBy?: number } {
  const attempts: RecordAttempt[] = []
  for (const [index, script] of scripts.entries()) {
    const name = `u${index}`
    let outcome = script[0] ?? "ok"
    // A short retry-after is waited out and the same upstream asked once more.
    if (outcome === "429-short") {
      attempts.push(recorded(name, outcome))
      outcome = script[1] ?? "ok"
    }
    if (outcome === "ok") {
      attempts.push({ upstream: name, model: "m", status: 200 })
      return { attempts, answeredBy: index }
    }
    attempts.push(recorded(name, outcome))
    // Another upstream would refuse the same request: the client is told.
    if (outcome === "400") return { attempts }
  }
  return { attempts }
}

const outcome = fc.constantFrom<Outcome>("ok", "network", "400", "500", "429-short", "429-long")

describe("attemptAlong", () => {
  it("asks the upstreams in order, moves on only for failures another upstream may not share, and waits out a short retry-after once", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(outcome, { maxLength: 3 }), { minLength: 1, maxLength: 4 }),
        async (scripts) => {
          const settings = resolveSettings(
            {
              fallback: {
                headersTimeoutMs: 50,
                retryAfterMaxMs: RETRY_AFTER_MAX_MS,
                breaker: { failures: 10, windowMs: 60_000, cooldownMs: 1_000, maxCooldownMs: 2_000 },
              },
            },
            {},
          )
          const serving: ServingConfig = { settings, config: undefined, env: {}, models: [] }
          const clock = () => 0
          const breaker = new CircuitBreaker(
            new MemoryStateStore(),
            () => settings.fallback.breaker,
            clock,
            () => {},
          )
          // Only the clock and the breaker are the policy's to read.
          const shared = { clock, breaker } as Partial<GatewayShared> as GatewayShared
          const links = scripts.map(
            (_, i) =>
              ({
                step: { upstream: { name: `u${i}`, provider: "anthropic", format: "anthropic" }, model: "m" },
                target: { name: `u${i}` },
              }) as unknown as RouteLink,
          )
          const left = scripts.map((script) => [...script])
          const asked: { index: number; hold: boolean; timeout: number | undefined }[] = []
          const along = await attemptAlong(
            links,
            async (link, hold, headersTimeoutMs): Promise<Tried<string>> => {
              const index = links.indexOf(link)
              asked.push({ index, hold: hold !== undefined, timeout: headersTimeoutMs })
              const next = left[index]!.shift() ?? "ok"
              return next === "ok"
                ? { ok: true, made: `from u${index}` }
                : { ok: false, failure: { error: failureOf(next) }, dropped: [] }
            },
            () => 200,
            { serving, shared, signal: new ClientGone() },
          )
          const want = expected(scripts)
          expect(along.attempts).toEqual(want.attempts)
          // Every attempt in the record was a call, and each call is in the record.
          expect(asked.map((a) => `u${a.index}`)).toEqual(want.attempts.map((a) => a.upstream))
          // The last upstream waits as long as any call and streams as it comes; the others are bounded and held.
          for (const a of asked) {
            const last = a.index === links.length - 1
            expect(a.hold).toBe(!last)
            expect(a.timeout).toBe(last ? undefined : 50)
          }
          if (want.answeredBy !== undefined) {
            expect(along.ok).toBe(true)
            if (along.ok) {
              expect(along.index).toBe(want.answeredBy)
              expect(along.made).toBe(`from u${want.answeredBy}`)
            }
          } else {
            expect(along.ok).toBe(false)
            if (!along.ok) expect(along.last?.failure.error.message).toBe(failureOf(lastFailure(scripts)).message)
          }
        },
      ),
      { numRuns: 300 },
    )
  })
})

/** The outcome of the last call a request that got no answer made. */
function lastFailure(scripts: Outcome[][]): Exclude<Outcome, "ok"> {
  const { attempts } = expected(scripts)
  const last = attempts.at(-1)!
  const index = Number(last.upstream.slice(1))
  const script = scripts[index]!
  const outcome = script[0] === "429-short" ? (script[1] ?? "ok") : (script[0] ?? "ok")
  return outcome as Exclude<Outcome, "ok">
}
