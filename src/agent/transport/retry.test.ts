import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { ProviderError, type ProviderErrorKind } from "../../providers/errors.js"
import {
  abortableSleep,
  DEFAULT_RETRY_POLICY,
  type RetryInfo,
  retryAfterInMessage,
  retryDelay,
  type Sleep,
  withRetry,
} from "./retry.js"

const failure = (kind: ProviderErrorKind, retryAfterMs?: number) =>
  new ProviderError(
    kind,
    `${kind} happened`,
    retryAfterMs === undefined ? { status: 500 } : { status: 429, retryAfterMs },
  )

/** A sleep that records what it was asked and returns at once. */
function recordingSleep(): { sleep: Sleep; asked: number[] } {
  const asked: number[] = []
  return { asked, sleep: async (ms) => void asked.push(ms) }
}

describe("retryDelay", () => {
  it("doubles from the initial delay, capped, with jitter that only takes off up to its share", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 30 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (attempt, random, jitter) => {
          const policy = { ...DEFAULT_RETRY_POLICY, jitter }
          const base = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** (attempt - 1))
          const delay = retryDelay(attempt, failure("server"), policy, random)
          expect(delay).toBeLessThanOrEqual(base)
          expect(delay).toBeGreaterThanOrEqual(Math.floor(base * (1 - jitter)))
        },
      ),
    )
  })

  it("with no jitter drawn the waits are 1 s, 2 s, 4 s, 8 s … up to 32 s", () => {
    const waits = [1, 2, 3, 4, 5, 6, 7].map((n) => retryDelay(n, failure("network"), DEFAULT_RETRY_POLICY, 0))
    expect(waits).toEqual([1000, 2000, 4000, 8000, 16_000, 32_000, 32_000])
  })

  it("honours the provider's retry-after exactly, without jitter, up to the cap", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000 }), fc.integer({ min: 1, max: 10 }), (after, attempt) => {
        const delay = retryDelay(attempt, failure("rate-limit", after), DEFAULT_RETRY_POLICY, 0.9)
        expect(delay).toBe(Math.min(after, DEFAULT_RETRY_POLICY.maxRetryAfterMs))
      }),
    )
  })
})

describe("withRetry", () => {
  it("retries retryable errors, reporting each retry before its wait, then succeeds", async () => {
    const { sleep, asked } = recordingSleep()
    const seen: RetryInfo[] = []
    const errors = [failure("rate-limit", 2000), failure("server"), failure("network")]
    const attempts: number[] = []
    const result = await withRetry(
      async (n) => {
        attempts.push(n)
        const error = errors[n]
        if (error) throw error
        return "ok"
      },
      { sleep, random: () => 0, onRetry: (info) => seen.push(info) },
    )
    expect(result).toBe("ok")
    expect(attempts).toEqual([0, 1, 2, 3])
    expect(asked).toEqual([2000, 2000, 4000])
    expect(seen.map((s) => [s.attempt, s.delayMs, s.error.kind])).toEqual([
      [1, 2000, "rate-limit"],
      [2, 2000, "server"],
      [3, 4000, "network"],
    ])
  })

  it("throws non-retryable errors at once", async () => {
    for (const kind of ["auth", "invalid-request", "context-overflow", "quota"] as const) {
      const { sleep, asked } = recordingSleep()
      let calls = 0
      const error = failure(kind)
      await expect(
        withRetry(
          async () => {
            calls++
            throw error
          },
          { sleep },
        ),
      ).rejects.toBe(error)
      expect(calls, kind).toBe(1)
      expect(asked, kind).toEqual([])
    }
    const plain = new Error("not a provider error")
    await expect(withRetry(() => Promise.reject(plain), {})).rejects.toBe(plain)
  })

  it("gives up after maxRetries, keeping the kind and saying how many retries were spent", async () => {
    fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 6 }), async (maxRetries) => {
        const { sleep, asked } = recordingSleep()
        let calls = 0
        const thrown = await withRetry(
          async () => {
            calls++
            throw failure("server")
          },
          { sleep, maxRetries, random: () => 0.5 },
        ).catch((e: unknown) => e)
        expect(calls).toBe(maxRetries + 1)
        expect(asked).toHaveLength(maxRetries)
        expect(thrown).toBeInstanceOf(ProviderError)
        expect((thrown as ProviderError).kind).toBe("server")
        expect((thrown as ProviderError).status).toBe(500)
        if (maxRetries > 0) expect((thrown as Error).message).toMatch(/gave up after \d+ retr(y|ies)\)$/)
      }),
    )
  })

  it("an abort during the wait ends it at once with the signal's reason", async () => {
    const controller = new AbortController()
    const started = Date.now()
    const reason = new Error("user pressed Ctrl-C")
    const run = withRetry(() => Promise.reject(failure("rate-limit", 50_000)), {
      signal: controller.signal,
      onRetry: () => setTimeout(() => controller.abort(reason), 10),
    })
    await expect(run).rejects.toBe(reason)
    expect(Date.now() - started).toBeLessThan(5000)
  })

  it("does not start when the signal is already aborted", async () => {
    const controller = new AbortController()
    controller.abort(new Error("stop"))
    let calls = 0
    await expect(
      withRetry(
        async () => {
          calls++
        },
        { signal: controller.signal },
      ),
    ).rejects.toThrow("stop")
    expect(calls).toBe(0)
  })
})

describe("abortableSleep", () => {
  it("resolves after the time, or rejects with the reason when aborted", async () => {
    await expect(abortableSleep(5)).resolves.toBeUndefined()
    const controller = new AbortController()
    const pending = abortableSleep(60_000, controller.signal)
    controller.abort(new Error("cancelled"))
    await expect(pending).rejects.toThrow("cancelled")
    await expect(abortableSleep(1, controller.signal)).rejects.toThrow("cancelled")
  })
})

describe("retryAfterInMessage", () => {
  it("reads OpenAI's 'try again in' durations", () => {
    expect(retryAfterInMessage("Rate limit reached for gpt-5. Please try again in 1.5s. Visit …")).toBe(1500)
    expect(retryAfterInMessage("Please try again in 20ms.")).toBe(20)
    expect(retryAfterInMessage("Please try again in 6m0s.")).toBe(360_000)
    expect(retryAfterInMessage("Please try again later.")).toBeUndefined()
  })
})
