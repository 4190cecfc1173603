import { beforeAll, describe, expect, it } from "vitest"
import type { Message } from "../history/message.js"
import { TokenCounter } from "../history/tokens.js"
import { type BuiltInWireFormat, WIRE_FORMATS } from "../models/types.js"
import type { PromptInput } from "../providers/types.js"
import { CacheExplainer, type CacheRequest } from "./explain.js"
import { cacheHeader, describeVerdict } from "./header.js"
import { defaultPrompt, encoded, scriptHistory } from "./test-helpers/script.js"

let counter: TokenCounter
let explainer: CacheExplainer
beforeAll(async () => {
  counter = await TokenCounter.create()
  explainer = new CacheExplainer({ counter })
})

const base = defaultPrompt()
const history = scriptHistory(12)

/** Request 1 with `before`, request 2 (one turn later, 30 s on) with `after`, both from the same history. */
function pair(
  format: BuiltInWireFormat,
  after: { prompt?: PromptInput; messages?: Message[]; gapMs?: number },
  before: { prompt?: PromptInput; messages?: Message[] } = {},
): [CacheRequest, CacheRequest] {
  const a = encoded(format, before.prompt ?? base, before.messages ?? history.slice(0, 7), 0)
  const b = encoded(format, after.prompt ?? base, after.messages ?? history.slice(0, 9), after.gapMs ?? 30_000)
  return [a, b]
}

const withText = (m: Message, text: string): Message => ({
  ...m,
  content: m.content.map((b, i) => (i === 0 && b.type === "text" ? { ...b, text } : b)),
})

describe.each(WIRE_FORMATS)("cache verdicts over %s", (format) => {
  it("a request that only grows the conversation is a hit, and says so in its header", () => {
    const v = explainer.explain(...pair(format, {}))
    expect(v.verdict).toBe("hit")
    expect(v.tokens.predictedRead).toBe(v.tokens.counterfactualRead)
    expect(v.cachedShare).toBeGreaterThan(0.7)
    expect(cacheHeader(v)).toMatch(/^hit; cached=0\.\d\d$/)
  })

  it("names a tool that was added, removed, reordered or edited", () => {
    const tools = base.tools
    const cases = [
      {
        tools: [...tools, { ...tools[0]!, id: "extra_tool", name: "extra_tool" }],
        change: "added",
        tool: "extra_tool",
      },
      { tools: tools.slice(0, -1), change: "removed", tool: tools.at(-1)!.name },
      { tools: [tools[2]!, ...tools.slice(0, 2), ...tools.slice(3)], change: "reordered", tool: tools[2]!.name },
      {
        tools: tools.map((t, i) => (i === 3 ? { ...t, description: `${t.description} More.` } : t)),
        change: "edited",
        tool: tools[3]!.name,
      },
    ] as const
    for (const c of cases) {
      const v = explainer.explain(...pair(format, { prompt: { ...base, tools: c.tools as PromptInput["tools"] } }))
      expect(v.verdict).toBe("miss")
      expect(v.cause).toMatchObject({ kind: "tools-changed", change: c.change, tool: c.tool })
      expect(v.missedTokens).toBeGreaterThan(1000)
      expect(v.addedCost).toBeGreaterThan(0)
    }
  })

  it("names the system prompt section that changed and shows the first differing bytes", () => {
    const text = base.text.replace("# Objective\n\n", "# Objective\n\nToday is Tuesday.\n")
    const v = explainer.explain(...pair(format, { prompt: { ...base, text } }))
    expect(v.cause).toMatchObject({ kind: "system-changed", section: "Objective" })
    if (v.cause?.kind !== "system-changed") throw new Error("unreachable")
    expect(v.cause.excerpt.after).toContain("Today is Tuesday")
    expect(v.cause.excerpt.before).not.toContain("Today is Tuesday")
  })

  it("tells an edit from a dedup, a truncation and a re-serialization", () => {
    const grown = history.slice(0, 9)
    const edit = explainer.explain(
      ...pair(format, { messages: grown.map((m, i) => (i === 3 ? withText(m, "Changed.") : m)) }),
    )
    expect(edit.cause).toMatchObject({ kind: "message-changed", change: "edit" })
    // A tool result replaced by a short stub: the dedup of a file read.
    const stubbed = grown.map((m, i) =>
      i === 2
        ? {
            ...m,
            content: m.content.map((b) => (b.type === "tool_result" ? { ...b, content: "[read again below]" } : b)),
          }
        : m,
    )
    expect(explainer.explain(...pair(format, { messages: stubbed }))).toMatchObject({
      cause: { kind: "message-changed", change: "dedup" },
    })
    // Two messages dropped after the first exchange.
    const cut = [...grown.slice(0, 2), ...grown.slice(4)]
    expect(explainer.explain(...pair(format, { messages: cut }))).toMatchObject({
      cause: { kind: "message-changed", change: "truncation" },
    })
    // The same tool call with its arguments' keys in another order.
    const withInput = (input: Record<string, unknown>) =>
      grown.map((m, i) =>
        i === 1 ? { ...m, content: m.content.map((b) => (b.type === "tool_use" ? { ...b, input } : b)) } : m,
      )
    const keyOrder = explainer.explain(
      ...pair(
        format,
        { messages: withInput({ regex: "budget", path: "src" }) },
        { messages: withInput({ path: "src", regex: "budget" }).slice(0, 7) },
      ),
    )
    expect(keyOrder.cause).toMatchObject({
      kind: "message-changed",
      message: expect.any(Number),
      change: "reserialization",
    })
    // The same text with other whitespace.
    const spaced = grown.map((m, i) => (i === 3 ? withText(m, `${(m.content[0] as { text: string }).text}  \n`) : m))
    expect(explainer.explain(...pair(format, { messages: spaced }))).toMatchObject({
      cause: { kind: "message-changed", change: "reserialization" },
    })
  })

  it("reports the cache lifetime exceeded from the simulated clock", () => {
    const v = explainer.explain(...pair(format, { gapMs: 3 * 3_600_000 }))
    expect(v.cause).toMatchObject({ kind: "expired", gapMs: 3 * 3_600_000 })
    expect(v.missedTokens).toBe(v.tokens.counterfactualRead)
  })

  it("reports a prefix below the model's minimum", () => {
    const small: PromptInput = { text: "You are terse.", tools: [] }
    const short: Message[] = [
      { id: "u1", role: "user", ts: 0, content: [{ type: "text", text: "Hi." }] },
      { id: "a1", role: "assistant", ts: 0, content: [{ type: "text", text: "Hello." }] },
      { id: "u2", role: "user", ts: 0, content: [{ type: "text", text: "Bye." }] },
    ]
    const v = explainer.explain(
      ...pair(format, { prompt: small, messages: short }, { prompt: small, messages: short.slice(0, 1) }),
    )
    expect(v.cause).toMatchObject({ kind: "below-minimum" })
  })

  it("reports fewer cached tokens than predicted with no visible cause as eviction", () => {
    const [a, b] = pair(format, {})
    const predicted = explainer.explain(a, b)
    const total = predicted.tokens.total
    const v = explainer.explain(a, b, { input: total, output: 10, cacheRead: 0, cacheWrite: 0 })
    expect(v.cause).toMatchObject({ kind: "evicted", reported: 0 })
    expect(describeVerdict(v)).toMatch(/no visible cause/)
    const agreed = explainer.explain(a, b, {
      input: total - predicted.tokens.predictedRead,
      output: 10,
      cacheRead: predicted.tokens.predictedRead,
      cacheWrite: 0,
    })
    expect(agreed.verdict).toBe("hit")
  })
})

describe("breakpoints (Anthropic)", () => {
  it("reports no breakpoint when the request carries none", () => {
    const a = encoded("anthropic", base, history.slice(0, 7), 0, { cache: false })
    const b = encoded("anthropic", base, history.slice(0, 9), 30_000, { cache: false })
    expect(explainer.explain(a, b).cause).toMatchObject({ kind: "no-breakpoint" })
  })

  it("reports no breakpoint when the new breakpoints are too far past the cached one", () => {
    // Only the last user message carries a breakpoint, and the new one is more than 20 blocks later.
    const long = scriptHistory(60, 9)
    const a = encoded("anthropic", base, long.slice(0, 5), 0, {
      cache: { breakpoints: { system: false, userMessages: 1 } },
    })
    const b = encoded("anthropic", base, long.slice(0, 45), 30_000, {
      cache: { breakpoints: { system: false, userMessages: 1 } },
    })
    expect(explainer.explain(a, b).cause).toMatchObject({ kind: "no-breakpoint" })
  })

  it("prices a miss at the cache-write price less the read price", () => {
    const [a, b] = pair("anthropic", { prompt: { ...base, tools: base.tools.slice(1) } })
    const v = explainer.explain(a, b)
    // claude-sonnet-4-5: writes $3.75, reads $0.30 per million.
    expect(v.addedCost).toBeCloseTo((v.missedTokens * (3.75 - 0.3)) / 1e6, 10)
  })
})
