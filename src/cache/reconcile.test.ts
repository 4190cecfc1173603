/**
 * The verdict once the provider's usage is known: the explainer never reports a miss the provider did not have. A
 * miss the layout predicted becomes a hit when the provider read what the counterfactual hit would have, and the
 * verdict keeps the prediction it overruled (`predicted`) to show where the layout and the provider part; a miss
 * the provider did have stays one.
 */
import fc from "fast-check"
import { beforeAll, describe, expect, it } from "vitest"
import type { Message } from "../history/message.js"
import { TokenCounter } from "../history/tokens.js"
import { WIRE_FORMATS } from "../models/types.js"
import type { PromptInput } from "../providers/types.js"
import { CacheExplainer, type CacheRequest } from "./explain.js"
import { defaultPrompt, encoded, scriptHistory } from "./test-helpers/script.js"

let explainer: CacheExplainer
beforeAll(async () => {
  explainer = new CacheExplainer({ counter: await TokenCounter.create() })
})

const base = defaultPrompt()
const history = scriptHistory(13)

/** Usage in which the provider read `read` of the request's `total` tokens. */
const usage = (total: number, read: number) => ({ input: total - read, output: 10, cacheRead: read, cacheWrite: 0 })

describe.each(WIRE_FORMATS)("a %s verdict with the provider's usage", (format) => {
  it("is a hit, with the overruled prediction, when the provider read what it predicted missed", () => {
    const tools = base.tools.map((t, i) => (i === 0 ? { ...t, description: `${t.description} Edited.` } : t))
    const a = encoded(format, base, history.slice(0, 7), 0)
    const b = encoded(format, { ...base, tools }, history.slice(0, 9), 30_000)
    const predicted = explainer.explain(a, b)
    expect(predicted.cause).toMatchObject({ kind: "tools-changed" })
    const read = predicted.tokens.counterfactualRead
    const v = explainer.explain(a, b, usage(predicted.tokens.total, read))
    expect(v).toMatchObject({ verdict: "hit", missedTokens: 0, predicted: { verdict: "miss", cause: predicted.cause } })
    expect(v.cause).toBeUndefined()
    // The provider read nothing: the miss is real and stays, with nothing overruled.
    const missed = explainer.explain(a, b, usage(predicted.tokens.total, 0))
    expect(missed).toMatchObject({ verdict: "miss", cause: { kind: "tools-changed" } })
    expect(missed.predicted).toBeUndefined()
  })

  it("is never a miss when the provider read at least the counterfactual, whatever changed", () => {
    const edit = (m: Message): Message => ({
      ...m,
      content: m.content.map((x) => (x.type === "text" ? { ...x, text: `${x.text}!` } : x)),
    })
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.nat(), fc.integer({ min: 0, max: 3 }), (n, pick, what) => {
        let prompt: PromptInput = base
        let messages = history.slice(0, 2 * n + 3)
        if (what === 1) prompt = { ...base, tools: base.tools.slice(1) }
        if (what === 2) prompt = { ...base, text: `${base.text}\nToday is day ${pick}.` }
        if (what === 3) messages = messages.map((m, i) => (i === pick % (2 * n + 1) ? edit(m) : m))
        const a: CacheRequest = encoded(format, base, history.slice(0, 2 * n + 1), 0)
        const b: CacheRequest = encoded(format, prompt, messages, 30_000)
        const predicted = explainer.explain(a, b)
        const read = Math.max(1, predicted.tokens.counterfactualRead)
        const v = explainer.explain(a, b, usage(predicted.tokens.total, Math.min(read, predicted.tokens.total)))
        expect(v.verdict).not.toBe("miss")
        if (predicted.verdict === "miss") expect(v.predicted?.cause).toEqual(predicted.cause)
      }),
      { numRuns: 25 },
    )
  })
})

describe("usage against the layout's special cases", () => {
  it("a prefix the catalog calls too small that the provider cached anyway is a hit", () => {
    const small: PromptInput = { text: "You are terse.", tools: [] }
    const short: Message[] = [
      { id: "u1", role: "user", ts: 0, content: [{ type: "text", text: "Hi." }] },
      { id: "a1", role: "assistant", ts: 0, content: [{ type: "text", text: "Hello." }] },
      { id: "u2", role: "user", ts: 0, content: [{ type: "text", text: "Bye." }] },
    ]
    const a = encoded("openai-chat", small, short.slice(0, 1), 0)
    const b = encoded("openai-chat", small, short, 30_000)
    const predicted = explainer.explain(a, b)
    expect(predicted.cause).toMatchObject({ kind: "below-minimum" })
    const v = explainer.explain(a, b, usage(predicted.tokens.total, predicted.tokens.counterfactualRead))
    expect(v).toMatchObject({ verdict: "hit", predicted: { cause: { kind: "below-minimum" } } })
  })

  it("a request without breakpoints that the provider read nothing of stays a miss", () => {
    const a = encoded("anthropic", base, history.slice(0, 7), 0, { cache: false })
    const b = encoded("anthropic", base, history.slice(0, 9), 30_000, { cache: false })
    const predicted = explainer.explain(a, b)
    expect(predicted.cause).toMatchObject({ kind: "no-breakpoint" })
    expect(explainer.explain(a, b, usage(predicted.tokens.total, 0))).toMatchObject({
      verdict: "miss",
      cause: { kind: "no-breakpoint" },
    })
  })
})
