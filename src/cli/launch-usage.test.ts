import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { GatewayRecord, RecordUsage } from "../gateway/record.js"
import type { ModelInfo } from "../models/types.js"
import { addRecord, type LaunchUsage, NO_USAGE, usageText } from "./launch-usage.js"

/** A user model row with round prices (US dollars per million tokens). */
const PRICED: ModelInfo = {
  id: "m-priced",
  provider: "anthropic",
  family: "claude",
  contextWindow: 100_000,
  maxOutput: 8_000,
  tokenizer: "claude",
  capabilities: { nativeTools: true, images: false, thinking: false },
  prices: { input: 2, output: 10, cacheRead: 0.5, cacheWrite: 4 },
  source: "test",
}

/** A finished record: routed to `model` when given, else answered by the gateway alone. */
function record(status: number, model?: string, usage?: RecordUsage): GatewayRecord {
  return {
    seq: 1,
    startedAt: 0,
    latencyMs: 1,
    clientFormat: "anthropic",
    transport: "http",
    model: model ?? "",
    ...(model ? { upstream: { name: "a", provider: "anthropic", format: "anthropic" as const, model } } : {}),
    status,
    ...(usage ? { usage } : {}),
    dropped: [],
    conversationKey: "",
    received: { url: "/v1/messages", headers: {}, body: {} },
  }
}

const sum = (records: GatewayRecord[]) => records.reduce((u, r) => addRecord(u, r, [PRICED]), NO_USAGE)

describe("a launch's usage", () => {
  it("adds tokens and prices each request at its model's prices", () => {
    const usage = sum([
      record(200, "m-priced", { input: 1_000_000, output: 100_000, cacheRead: 2_000_000, cacheWrite: 0 }),
      record(200, "m-priced", { input: 0, output: 0, cacheRead: 0, cacheWrite: 500_000 }),
    ])
    // 2 + 1 + 1 for the first request, 2 for the second.
    expect(usage).toMatchObject({ requests: 2, failed: 0, unrouted: 0, priced: 2, unpriced: 0 })
    expect(usage.cost).toBeCloseTo(6, 10)
    expect(usageText(usage)).toBe("2 requests, 3,500,000 tokens in (57% from the cache), 100,000 out, $6.0000")
  })

  it("keeps apart the calls no upstream saw, the failed requests and the models without prices", () => {
    const usage = sum([
      record(401),
      record(404),
      record(429, "m-priced"),
      record(200, "not-a-model-anyone-knows", { input: 10, output: 2, cacheRead: 0, cacheWrite: 0 }),
    ])
    expect(usage).toMatchObject({ requests: 2, failed: 1, unrouted: 2, priced: 0, unpriced: 1, cost: 0 })
    expect(usageText(usage)).toBe(
      "2 requests (1 failed), 10 tokens in (0% from the cache), 2 out, 1 request of a model without catalog prices; 2 calls answered by the gateway alone (refused without the token, probes, model lists)",
    )
    expect(usageText(sum([record(401)]))).toBe(
      "no model requests; 1 call answered by the gateway alone (refused without the token, probes, model lists)",
    )
    expect(usageText(NO_USAGE)).toBe("no model requests")
  })

  it("is the same whatever order the requests finish in", () => {
    const arbitraryRecord = fc
      .tuple(
        fc.constantFrom(200, 400, 401, 500),
        fc.option(fc.constantFrom("m-priced", "unknown-model-x"), { nil: undefined }),
        fc.record({
          input: fc.nat(10_000),
          output: fc.nat(10_000),
          cacheRead: fc.nat(10_000),
          cacheWrite: fc.nat(10_000),
        }),
      )
      .map(([status, model, usage]) => record(status, model, usage))
    const recordsInTwoOrders = fc
      .array(arbitraryRecord, { maxLength: 12 })
      .chain((records) =>
        fc.tuple(
          fc.constant(records),
          fc.shuffledSubarray(records, { minLength: records.length, maxLength: records.length }),
        ),
      )
    fc.assert(
      fc.property(recordsInTwoOrders, ([records, shuffled]) => {
        const a: LaunchUsage = sum(records)
        const b: LaunchUsage = sum(shuffled)
        expect({ ...b, cost: 0 }).toEqual({ ...a, cost: 0 })
        expect(b.cost).toBeCloseTo(a.cost, 9)
        expect(a.requests + a.unrouted).toBe(records.length)
      }),
    )
  })
})
