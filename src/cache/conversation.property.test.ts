/**
 * The conversation affinity as properties: a request that keeps most of the previous one's system prompt (a
 * volatile tail replaced, a line at the top changed, a paragraph edited) and most of its tools (some added,
 * removed or reordered) continues it; a side call with a system prompt and tools of its own never does.
 */
import fc from "fast-check"
import { beforeAll, describe, expect, it } from "vitest"
import { TokenCounter } from "../history/tokens.js"
import { resolveModel } from "../models/resolve.js"
import { type CacheLayout, cacheLayout } from "./cache-layout.js"
import { affinity } from "./conversation.js"

let counter: TokenCounter
beforeAll(async () => {
  counter = await TokenCounter.create()
})

const MAIN_WORDS = ["read", "the", "file", "before", "editing", "run", "tests", "keep", "changes", "small"]
const SIDE_WORDS = ["extract", "memory", "facts", "durable", "user", "prefers", "saved", "once", "only", "brief"]

const paragraph = (words: string[]) =>
  fc.array(fc.constantFrom(...words), { minLength: 8, maxLength: 30 }).map((w) => `${w.join(" ")}.`)
const prompt = (words: string[]) => fc.array(paragraph(words), { minLength: 4, maxLength: 12 })
const names = (prefix: string) =>
  fc
    .uniqueArray(fc.integer({ min: 0, max: 99 }), { minLength: 3, maxLength: 12 })
    .map((ns) => ns.map((i) => `${prefix}${i}`))

/** An OpenAI Chat request with this system prompt and tools, laid out. */
function layout(system: string, tools: string[]): CacheLayout {
  const body = {
    model: "gpt-4o",
    messages: [
      { role: "system", content: system },
      { role: "user", content: "Start." },
    ],
    tools: tools.map((name) => ({
      type: "function",
      function: { name, description: `Tool ${name}.`, parameters: { type: "object" } },
    })),
  }
  return cacheLayout("openai-chat", body, resolveModel("gpt-4o").model, counter)
}

describe("conversation affinity", () => {
  it("a request that keeps most of the prompt and tools continues the conversation", () => {
    fc.assert(
      fc.property(
        prompt(MAIN_WORDS),
        names("tool_"),
        fc.constantFrom("tail", "top", "middle", "top and tail"),
        fc.string({ maxLength: 60 }),
        fc.nat(),
        fc.integer({ min: 0, max: 3 }),
        (paragraphs, tools, where, volatile, pick, churn) => {
          const text = paragraphs.join("\n\n")
          const changed = [...paragraphs]
          if (where === "middle") changed[pick % changed.length] = `${volatile} ${changed[pick % changed.length]}`
          const top = where.startsWith("top") ? `Request ${volatile}\n\n` : ""
          const tail = where.endsWith("tail") ? `\n\nNow: ${volatile}` : ""
          // A third of the tools at most added or removed, and the rest in another order.
          const k = Math.min(churn, Math.floor(tools.length / 3))
          const next = [
            ...tools.slice(k).reverse(),
            ...Array.from({ length: pick % 2 === 0 ? k : 0 }, (_, i) => `new_${i}`),
          ]
          const score = affinity(layout(text, tools), layout(`${top}${changed.join("\n\n")}${tail}`, next))
          expect(score).toBeDefined()
        },
      ),
      { numRuns: 80 },
    )
  })

  it("a side call with a prompt of its own, or tools of its own (or none), never continues it", () => {
    fc.assert(
      fc.property(
        prompt(MAIN_WORDS),
        names("tool_"),
        prompt(SIDE_WORDS),
        fc.option(names("side_"), { nil: undefined }),
        fc.constantFrom("prompt", "tools", "both"),
        (main, tools, side, sideTools, own) => {
          const text = main.join("\n\n")
          const a = layout(text, tools)
          const b = layout(own === "tools" ? text : side.join("\n\n"), own === "prompt" ? tools : (sideTools ?? []))
          expect(affinity(a, b)).toBeUndefined()
          expect(affinity(b, a)).toBeUndefined()
        },
      ),
      { numRuns: 80 },
    )
  })
})
