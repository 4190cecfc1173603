/**
 * Forms Anthropic caches the same never change a verdict. Its cache key is the rendered prompt up to a breakpoint:
 * a string `content` is shorthand for one text block (a message's, a tool result's), a `cache_control` marker is no
 * part of the content (a null one is no marker), and a top-level `cache_control` marks the last block. Whatever mix
 * of those forms two requests use, the explainer says what it says of the plain forms: the same verdict, cause and
 * predicted reads, so no miss the provider did not have.
 */
import fc from "fast-check"
import { beforeAll, describe, expect, it } from "vitest"
import type { Message } from "../history/message.js"
import { TokenCounter } from "../history/tokens.js"
import { CacheExplainer, type CacheRequest, type CacheVerdict } from "./explain.js"
import { claudeCodeSession } from "./test-helpers/agent-traffic.js"
import { defaultPrompt, encoded, scriptHistory } from "./test-helpers/script.js"

type Json = Record<string, unknown>

let counter: TokenCounter
beforeAll(async () => {
  counter = await TokenCounter.create()
})

/** Choices for one body: a stream of booleans read in order (cycled). */
type Coins = boolean[]

/** The body written in other forms Anthropic reads the same, as `coins` pick them. */
function reform(body: Json, coins: Coins): Json {
  let i = 0
  const flip = () => coins.length > 0 && coins[i++ % coins.length] === true
  const text = (t: string) => ({ type: "text", text: t })
  const blocks = (content: unknown): unknown => {
    if (typeof content === "string") return flip() ? [text(content)] : content
    const list = content as Json[]
    const only = list[0]
    if (list.length === 1 && only?.type === "text" && only.cache_control === undefined && flip()) return only.text
    return list.map((b) => {
      let out: Json = { ...b }
      if (out.type === "tool_result" && out.content !== undefined) out = { ...out, content: blocks(out.content) }
      if (out.cache_control === undefined && flip()) out.cache_control = null
      return out
    })
  }
  const messages = (body.messages as Json[]).map((m) => ({ ...m, content: blocks(m.content) }))
  const out: Json = { ...body, messages }
  // The marker on the last block moved to the top level: Anthropic puts it back on that block.
  const last = messages.at(-1)!.content
  if (Array.isArray(last)) {
    const block = last.at(-1) as Json
    if (block.cache_control && flip()) {
      const { cache_control: marker, ...rest } = block
      last[last.length - 1] = rest
      out.cache_control = marker
    }
  }
  return out
}

/** What must not move: the verdict, its cause, and the figures it rests on. */
function gist(v: CacheVerdict) {
  const cause = v.cause
  return {
    verdict: v.verdict,
    cause: cause?.kind === "message-changed" ? { ...cause, path: undefined } : cause,
    shared: v.tokens.shared,
    predictedRead: v.tokens.predictedRead,
    counterfactualRead: v.tokens.counterfactualRead,
    breakpoints: v.breakpoints.map((b) => [b.tokens, b.ttl]),
  }
}

const coins = fc.array(fc.boolean(), { minLength: 1, maxLength: 40 })

describe("forms Anthropic caches the same", () => {
  it("never change the verdict on a Claude Code session (every request a hit)", () => {
    const sessions = new Map<number, Json[]>()
    const session = (every: number) => {
      const known = sessions.get(every) ?? claudeCodeSession(12, { reminderEvery: every })
      sessions.set(every, known)
      return known
    }
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 0, max: 10 }),
        fc.integer({ min: 1, max: 3 }),
        coins,
        coins,
        (every, k, step, a, b) => {
          const bodies = session(every)
          const later = Math.min(k + step, bodies.length - 1)
          fc.pre(later > k)
          const request = (body: Json, at: number): CacheRequest => ({ format: "anthropic", body, at })
          const explainer = new CacheExplainer({ counter })
          const plain = explainer.explain(request(bodies[k]!, 0), request(bodies[later]!, 30_000))
          const mixed = explainer.explain(request(reform(bodies[k]!, a), 0), request(reform(bodies[later]!, b), 30_000))
          expect(plain.verdict).toBe("hit")
          expect(gist(mixed)).toEqual(gist(plain))
        },
      ),
      { numRuns: 60 },
    )
  })

  it("never change the verdict, hit or miss, on promptline's own requests with an edit somewhere", () => {
    const prompt = defaultPrompt()
    const history = scriptHistory(15, 5)
    fc.assert(
      fc.property(
        fc.integer({ min: 3, max: 11 }),
        fc.integer({ min: 1, max: 4 }),
        fc.option(fc.nat(), { nil: undefined }),
        coins,
        coins,
        (n, step, editAt, a, b) => {
          // An edit of some earlier message's first text (when asked for): a real miss, which must stay one.
          const after: Message[] = history.map((m, i) =>
            editAt !== undefined && i === editAt % n
              ? { ...m, content: m.content.map((x) => (x.type === "text" ? { ...x, text: `${x.text} (edited)` } : x)) }
              : m,
          )
          const prev = encoded("anthropic", prompt, history.slice(0, n), 0)
          const cur = encoded("anthropic", prompt, after.slice(0, Math.min(n + step, history.length)), 30_000)
          const explainer = new CacheExplainer({ counter })
          const plain = explainer.explain(prev, cur)
          const mixed = explainer.explain(
            { ...prev, body: reform(prev.body as Json, a) },
            { ...cur, body: reform(cur.body as Json, b) },
          )
          expect(gist(mixed)).toEqual(gist(plain))
        },
      ),
      { numRuns: 60 },
    )
  })
})
