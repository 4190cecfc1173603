import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { ModelInfo } from "../models/types.js"
import {
  type CacheLayout,
  cacheControl,
  DEFAULT_MIN_CACHE_TOKENS,
  estimateTokens,
  IMAGE_TOKEN_ESTIMATE,
  planBreakpoints,
} from "./cache.js"

const model: ModelInfo = {
  id: "m",
  provider: "anthropic",
  family: "claude",
  contextWindow: 200_000,
  maxOutput: 8192,
  tokenizer: "claude",
  capabilities: { nativeTools: true, images: true, thinking: true },
  cache: { minTokens: 1024, maxBreakpoints: 4, ttls: ["5m", "1h"] },
  source: "test",
}

const msg = (role: "user" | "assistant", ...blocks: [string, number][]) => ({
  role,
  blocks: blocks.map(([type, tokens]) => ({ type, tokens })),
})

describe("planBreakpoints", () => {
  const layout: CacheLayout = {
    tools: [300, 300],
    system: [900],
    messages: [
      msg("user", ["text", 100]),
      msg("assistant", ["thinking", 50], ["text", 20]),
      msg("user", ["tool_result", 400]),
      msg("assistant", ["text", 10], ["thinking", 500]),
      msg("user", ["text", 5], ["image", 1600]),
    ],
  }

  it("places the system prompt and the last two user messages by default", () => {
    const { breakpoints } = planBreakpoints(layout, model, undefined)
    expect(breakpoints).toEqual([
      {
        target: "system",
        blockIndex: 0,
        ttl: "5m",
        prefixTokens: 1500,
        placed: true,
        reason: "end of the system prompt",
      },
      {
        target: "message",
        messageIndex: 2,
        blockIndex: 0,
        ttl: "5m",
        prefixTokens: 2070,
        placed: true,
        reason: "one of the last user messages",
      },
      {
        target: "message",
        messageIndex: 4,
        blockIndex: 1,
        ttl: "5m",
        prefixTokens: 4185,
        placed: true,
        reason: "one of the last user messages",
      },
    ])
  })

  it("skips a breakpoint whose prefix is below the model's minimum, and says why", () => {
    const { breakpoints } = planBreakpoints({ ...layout, tools: [] }, model, { breakpoints: { tools: true } })
    expect(breakpoints[0]).toMatchObject({ target: "system", placed: false, prefixTokens: 900 })
    expect(breakpoints[0]!.reason).toBe("prefix of about 900 tokens is below the minimum of 1024 for m")
  })

  it("uses the default minimum when the catalog has none", () => {
    const bare = { ...model, cache: undefined }
    const small = planBreakpoints({ tools: [], system: [DEFAULT_MIN_CACHE_TOKENS - 1], messages: [] }, bare, {})
    expect(small.breakpoints[0]!.placed).toBe(false)
    const enough = planBreakpoints({ tools: [], system: [DEFAULT_MIN_CACHE_TOKENS], messages: [] }, bare, {})
    expect(enough.breakpoints[0]!.placed).toBe(true)
  })

  it("keeps tools and system and drops the oldest messages beyond the limit", () => {
    const { breakpoints } = planBreakpoints(layout, model, { breakpoints: { tools: true, userMessages: 3 } })
    expect(breakpoints.map((b) => [b.target, b.messageIndex, b.placed])).toEqual([
      ["tools", undefined, false],
      ["system", undefined, true],
      ["message", 0, true],
      ["message", 2, true],
      ["message", 4, true],
    ])
    const big = { ...layout, tools: [1100] }
    const limited = planBreakpoints(big, model, { breakpoints: { tools: true, userMessages: 3 } })
    expect(limited.breakpoints.filter((b) => b.placed).map((b) => b.messageIndex ?? b.target)).toEqual([
      "tools",
      "system",
      2,
      4,
    ])
    expect(limited.breakpoints[2]!.reason).toBe("limit of 4 breakpoints per request reached")
  })

  it("falls back to 5m when the model has no 1h cache", () => {
    const short = { ...model, cache: { ...model.cache!, ttls: ["5m" as const] } }
    const plan = planBreakpoints(layout, short, { ttl: "1h" })
    expect(plan.breakpoints.every((b) => b.ttl === "5m")).toBe(true)
    expect(plan.diagnostics[0]!.code).toBe("cache-ttl-unsupported")
  })

  it("places nothing when caching is off", () => {
    expect(planBreakpoints(layout, model, false).breakpoints).toEqual([])
  })

  it("never places more than the limit nor on thinking, for any layout and policy", () => {
    const layoutArb = fc.record({
      tools: fc.array(fc.nat(2000), { maxLength: 3 }),
      system: fc.array(fc.nat(2000), { maxLength: 2 }),
      messages: fc.array(
        fc.record({
          role: fc.constantFrom("user" as const, "assistant" as const),
          blocks: fc.array(
            fc.record({
              type: fc.constantFrom("text", "thinking", "redacted_thinking", "tool_use"),
              tokens: fc.nat(900),
            }),
            { maxLength: 4 },
          ),
        }),
        { maxLength: 10 },
      ),
    })
    const policyArb = fc.record({ tools: fc.boolean(), system: fc.boolean(), userMessages: fc.nat(8) })
    fc.assert(
      fc.property(layoutArb, policyArb, fc.integer({ min: 1, max: 6 }), (l, policy, max) => {
        const m = { ...model, cache: { ...model.cache!, maxBreakpoints: max } }
        const { breakpoints } = planBreakpoints(l, m, { breakpoints: policy })
        const placed = breakpoints.filter((b) => b.placed)
        expect(placed.length).toBeLessThanOrEqual(max)
        for (const b of placed) {
          expect(b.prefixTokens).toBeGreaterThanOrEqual(1024)
          if (b.target === "message")
            expect(l.messages[b.messageIndex!]!.blocks[b.blockIndex!]!.type).not.toMatch(/thinking/)
        }
      }),
    )
  })
})

describe("cacheControl", () => {
  it("writes the one-hour lifetime and leaves the five-minute default implicit", () => {
    expect(cacheControl("1h")).toEqual({ type: "ephemeral", ttl: "1h" })
    expect(cacheControl("5m")).toEqual({ type: "ephemeral" })
  })
})

describe("estimateTokens", () => {
  it("counts string characters / 4 and a fixed figure per image", () => {
    expect(estimateTokens({ type: "text", text: "x".repeat(400) })).toBe(101)
    const image = { type: "image", source: { type: "base64", media_type: "image/png", data: "A".repeat(100_000) } }
    expect(estimateTokens([image])).toBe(IMAGE_TOKEN_ESTIMATE)
  })
})
