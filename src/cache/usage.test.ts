import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { TokenCounter } from "../history/tokens.js"
import { PriceList, requestCost } from "../models/cost.js"
import { defaultPrompt, encoded, scriptHistory } from "./test-helpers/script.js"
import { TraceStore } from "./trace-store.js"
import { type UsageEntry, UsageTally } from "./usage.js"
import { usageReport } from "./usage-report.js"

const prices = new PriceList()

const entry: fc.Arbitrary<UsageEntry> = fc.record(
  {
    model: fc.constantFrom("claude-sonnet-4-5", "gpt-4o", "house-model"),
    usage: fc.record({
      input: fc.nat(100_000),
      output: fc.nat(10_000),
      cacheRead: fc.nat(100_000),
      cacheWrite: fc.nat(10_000),
    }),
    failed: fc.boolean(),
    fallback: fc.boolean(),
  },
  { requiredKeys: ["model", "failed", "fallback"] },
)

describe("the usage tally", () => {
  it("sums what it is given, one request at a time, whatever the order", () => {
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 40 }), (entries) => {
        const tally = new UsageTally(prices)
        const costs = entries.map((e) => tally.add(e))
        const t = tally.totals()
        expect(t.requests).toBe(entries.length)
        expect(t.errors).toBe(entries.filter((e) => e.failed).length)
        expect(t.fallbacks).toBe(entries.filter((e) => e.fallback).length)
        expect(t.unreported).toBe(entries.filter((e) => !e.usage && !e.failed).length)
        const sum = (f: (u: NonNullable<UsageEntry["usage"]>) => number) =>
          entries.reduce((n, e) => n + (e.usage ? f(e.usage) : 0), 0)
        expect(t.tokens).toEqual({
          input: sum((u) => u.input),
          cacheRead: sum((u) => u.cacheRead),
          cacheWrite: sum((u) => u.cacheWrite),
          output: sum((u) => u.output),
        })
        const priced = entries.filter((e) => e.usage && e.model !== "house-model")
        expect(t.cost.priced).toBe(priced.length)
        expect(t.cost.unpriced).toBe(entries.filter((e) => e.usage && e.model === "house-model").length)
        const dollars = priced.reduce((n, e) => n + requestCost(e.usage!, prices.pricesOf(e.model))!.total, 0)
        expect(t.cost.total).toBeCloseTo(dollars, 9)
        // Each add returns the request's own cost: what a log line or the status page shows for it.
        expect(costs.filter((c) => c !== undefined)).toHaveLength(priced.length)
        const reversed = new UsageTally(prices)
        for (const e of [...entries].reverse()) reversed.add(e)
        expect(reversed.totals().cost.total).toBeCloseTo(t.cost.total, 9)
        expect(reversed.totals().tokens).toEqual(t.tokens)
      }),
    )
  })

  it("hands out copies: what it returned does not change as requests come", () => {
    const tally = new UsageTally(prices)
    tally.add({
      model: "house-model",
      usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 },
      failed: false,
      fallback: false,
    })
    const before = tally.totals()
    tally.add({
      model: "other-house-model",
      usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 },
      failed: false,
      fallback: false,
    })
    expect(before.cost.unpricedModels).toEqual(["house-model"])
    expect(before.requests).toBe(1)
  })
})

describe("fallbacks in traces", () => {
  it("counts a traced request with more than one attempt as a fallback", async () => {
    const dir = await mkdtemp(join(tmpdir(), "pl-usage-fallbacks-"))
    try {
      const store = new TraceStore(dir, { counter: await TokenCounter.create() })
      const history = scriptHistory(5)
      const usage = { input: 100, output: 10, cacheRead: 0, cacheWrite: 0 }
      const attempts = [
        [],
        [{ upstream: "main", model: "claude-sonnet-4-5", status: 200 }],
        [
          { upstream: "main", model: "claude-sonnet-4-5", status: 529, error: "overloaded" },
          { upstream: "backup", model: "gpt-4o", status: 200 },
        ],
      ]
      for (const [i, tried] of attempts.entries()) {
        const sent = encoded("anthropic", defaultPrompt(), history.slice(0, 2 * i + 1), 1_800_000_000_000 + i)
        await store.record({
          at: 1_800_000_000_000 + i,
          clientApi: "anthropic",
          upstream: { format: "anthropic", name: "main", provider: "anthropic" },
          model: "claude-sonnet-4-5",
          conversation: "c",
          sent: { body: sent.body },
          usage,
          status: 200,
          ...(tried.length > 0 ? { attempts: tried } : {}),
        })
      }
      const report = await usageReport(dir)
      expect(report.total).toMatchObject({ requests: 3, fallbacks: 1, errors: 0 })
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
