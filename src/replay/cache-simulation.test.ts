import Anthropic from "@anthropic-ai/sdk"
import fc from "fast-check"
import { afterEach, beforeAll, describe, expect, it } from "vitest"
import { cacheLayout } from "../cache/cache-layout.js"
import { TokenCounter } from "../history/tokens.js"
import { resolveModel } from "../models/resolve.js"
import { CacheSimulation } from "./cache-simulation.js"
import { type ReplayServer, startReplayServer } from "./server.js"
import { scriptOf } from "./test-helpers/fixtures.js"

/** A turn with no scripted usage, so the simulation bills it. */
const unbilled = { text: "All tests pass now." }

const MODEL = "claude-sonnet-4-5"
const SYSTEM = `You are a coding agent. ${"Read the files before editing them. ".repeat(400)}`
const MARK = { type: "ephemeral" } as const

let counter: TokenCounter
beforeAll(async () => {
  counter = await TokenCounter.create()
})

let server: ReplayServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

type Turn = { role: "user" | "assistant"; text: string }

/** An Anthropic body: the system prompt and the turns, with a breakpoint on the system and on the last turn. */
function body(turns: readonly Turn[], options: { last?: boolean; ttl?: "1h"; system?: string } = {}) {
  return {
    model: MODEL,
    max_tokens: 64,
    system: [{ type: "text", text: options.system ?? SYSTEM, cache_control: MARK }],
    messages: turns.map((t, i) => ({
      role: t.role,
      content: [
        {
          type: "text",
          text: t.text,
          ...(i === turns.length - 1 && options.last !== false
            ? { cache_control: options.ttl ? { ...MARK, ttl: options.ttl } : MARK }
            : {}),
        },
      ],
    })),
  }
}

const conversation = (n: number): Turn[] =>
  Array.from({ length: n }, (_, i) => ({
    role: i % 2 === 0 ? ("user" as const) : ("assistant" as const),
    text: `turn ${i}: ${"some words about the code ".repeat(20)}`,
  }))

const layoutOf = (b: unknown) => cacheLayout("anthropic", b, resolveModel(MODEL, {}).model, counter)
/** Tokens of the prefix up to the last breakpoint of a body. */
const toLastBreakpoint = (b: unknown) => {
  const l = layoutOf(b)
  return l.ends[l.breakpoints.at(-1)!]!
}

describe("cache simulation (Anthropic breakpoints)", () => {
  it("writes the prefix up to the last breakpoint first, then reads it and writes only what is new", () => {
    const sim = new CacheSimulation({ counter, now: () => 0 })
    const first = body(conversation(3))
    const u1 = sim.bill("anthropic", first)
    expect(u1.cacheRead).toBe(0)
    expect(u1.cacheWrite).toBe(toLastBreakpoint(first))
    expect(u1.input + u1.cacheRead + u1.cacheWrite).toBe(layoutOf(first).total)
    const second = body(conversation(5))
    const u2 = sim.bill("anthropic", second)
    expect(u2.cacheRead).toBe(toLastBreakpoint(first))
    expect(u2.cacheWrite).toBe(toLastBreakpoint(second) - toLastBreakpoint(first))
    expect(u2.input + u2.cacheRead + u2.cacheWrite).toBe(layoutOf(second).total)
  })

  it("reads nothing after the lifetime has passed, and a read renews the entry", () => {
    let clock = 0
    const sim = new CacheSimulation({ counter, now: () => clock })
    const b = body(conversation(3))
    sim.bill("anthropic", b)
    clock = 4 * 60_000
    expect(sim.bill("anthropic", b).cacheRead).toBe(toLastBreakpoint(b))
    clock = 8 * 60_000 // 4 minutes after the read that renewed it
    expect(sim.bill("anthropic", b).cacheRead).toBe(toLastBreakpoint(b))
    clock = 13 * 60_000 + 1 // 5 minutes and 1 ms after the last use
    const late = sim.bill("anthropic", b)
    expect(late.cacheRead).toBe(0)
    expect(late.cacheWrite).toBe(toLastBreakpoint(b))
  })

  it("keeps an entry written with ttl 1h for an hour", () => {
    let clock = 0
    const sim = new CacheSimulation({ counter, now: () => clock })
    const b = body(conversation(3), { ttl: "1h" })
    sim.bill("anthropic", b)
    clock = 59 * 60_000
    expect(sim.bill("anthropic", body(conversation(3))).cacheRead).toBe(toLastBreakpoint(b))
  })

  it("caches nothing below the model's minimum, and reads nothing without a breakpoint", () => {
    const sim = new CacheSimulation({ counter, now: () => 0 })
    const small = body([{ role: "user", text: "hi" }], { system: "Be brief." })
    expect(sim.bill("anthropic", small)).toMatchObject({ cacheRead: 0, cacheWrite: 0 })
    expect(sim.bill("anthropic", small)).toMatchObject({ cacheRead: 0, cacheWrite: 0 })
    const other = new CacheSimulation({ counter, now: () => 0 })
    const b = body(conversation(3))
    other.bill("anthropic", b)
    const unmarked = {
      ...b,
      system: [{ type: "text", text: SYSTEM }],
      messages: body(conversation(3), { last: false }).messages,
    }
    expect(other.bill("anthropic", unmarked)).toMatchObject({ cacheRead: 0, cacheWrite: 0 })
  })

  it("finds an entry only within 20 units before a breakpoint", () => {
    const sim = new CacheSimulation({ counter, now: () => 0 })
    // Only the last turn is marked (no system breakpoint), so the entry is the 3-turn prefix.
    const marked = (n: number) => ({ ...body(conversation(n)), system: [{ type: "text", text: SYSTEM }] })
    sim.bill("anthropic", marked(3))
    expect(sim.bill("anthropic", marked(23)).cacheRead).toBe(toLastBreakpoint(marked(3)))
    const far = new CacheSimulation({ counter, now: () => 0 })
    far.bill("anthropic", marked(3))
    expect(far.bill("anthropic", marked(25)).cacheRead).toBe(0)
  })

  it("reads nothing of a prefix that changed before the entry", () => {
    const sim = new CacheSimulation({ counter, now: () => 0 })
    sim.bill("anthropic", body(conversation(5)))
    const edited = conversation(7)
    edited[1] = { role: "assistant", text: "an edited answer" }
    const u = sim.bill("anthropic", body(edited))
    // Only the system prompt's entry is still shared.
    expect(u.cacheRead).toBe(layoutOf(body(edited)).ends[layoutOf(body(edited)).breakpoints[0]!])
  })

  it("bills every token once: input, reads and writes add up to the request's total", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 6 }), (lengths) => {
        const sim = new CacheSimulation({ counter, now: () => 0 })
        for (const n of lengths) {
          const b = body(conversation(n))
          const u = sim.bill("anthropic", b)
          expect(u.input + u.cacheRead + u.cacheWrite).toBe(layoutOf(b).total)
          expect(Math.min(u.input, u.cacheRead, u.cacheWrite)).toBeGreaterThanOrEqual(0)
        }
      }),
      { numRuns: 25 },
    )
  })
})

describe("cache simulation (automatic prefix caching)", () => {
  it("reads the shared prefix in 128-token steps from the minimum", () => {
    const sim = new CacheSimulation({ counter, now: () => 0 })
    const chat = (n: number) => ({
      model: "gpt-4.1",
      messages: [
        { role: "system", content: SYSTEM },
        ...conversation(n).map((t) => ({ role: t.role, content: t.text })),
      ],
    })
    expect(sim.bill("openai-chat", chat(2)).cacheRead).toBe(0)
    const u = sim.bill("openai-chat", chat(4))
    const shared = cacheLayout("openai-chat", chat(2), resolveModel("gpt-4.1", {}).model, counter).total
    expect(u.cacheRead).toBeGreaterThan(shared - 128 - 1)
    expect(u.cacheRead).toBeLessThanOrEqual(shared)
    expect((u.cacheRead - 1024) % 128).toBe(0)
    expect(u.cacheWrite).toBe(0)
  })
})

describe("replay server with cache: simulate", () => {
  it("answers an Anthropic client with the simulated usage; without the option usage is the usual estimate", async () => {
    server = await startReplayServer({ script: scriptOf(unbilled, unbilled), cache: "simulate", now: () => 0 })
    const client = new Anthropic({ apiKey: "k", baseURL: server.urls.anthropic, maxRetries: 0 })
    const b1 = body(conversation(3))
    const first = await client.messages.create(b1 as Anthropic.MessageCreateParamsNonStreaming)
    expect(first.usage.cache_creation_input_tokens).toBe(toLastBreakpoint(b1))
    expect(first.usage.cache_read_input_tokens ?? 0).toBe(0)
    const b2 = body(conversation(5))
    const second = await client.messages.stream(b2 as Anthropic.MessageStreamParams).finalMessage()
    expect(second.usage.cache_read_input_tokens).toBe(toLastBreakpoint(b1))
    expect(
      second.usage.input_tokens + second.usage.cache_read_input_tokens! + second.usage.cache_creation_input_tokens!,
    ).toBe(layoutOf(b2).total)
    await server.close()
    server = await startReplayServer({ script: scriptOf(unbilled) })
    const plain = new Anthropic({ apiKey: "k", baseURL: server.urls.anthropic, maxRetries: 0 })
    const again = await plain.messages.create(b1 as Anthropic.MessageCreateParamsNonStreaming)
    expect(again.usage.cache_read_input_tokens ?? 0).toBe(0)
    expect(again.usage.input_tokens).toBe(Math.ceil(JSON.stringify(b1).length / 4))
  })
})
