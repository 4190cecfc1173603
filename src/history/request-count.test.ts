import fc from "fast-check"
import { beforeAll, describe, expect, it } from "vitest"
import { resolveModel } from "../models/resolve.js"
import { WIRE_FORMATS } from "../models/types.js"
import { ContextManager } from "./context-manager.js"
import type { Message } from "./message.js"
import { type CountedPrompt, countRequest, promptCount } from "./request-count.js"
import { overheadOf, TokenCounter } from "./tokens.js"

let counter: TokenCounter
beforeAll(async () => {
  counter = await TokenCounter.create()
})

const tool = fc.record({
  name: fc.stringMatching(/^[a-z_]{1,12}$/),
  description: fc.string({ maxLength: 40 }),
  parameters: fc.constant({ type: "object", properties: { path: { type: "string" } } }),
  kind: fc.constant("client"),
})
const prompt = fc.record({
  text: fc.string({ maxLength: 80 }),
  tools: fc.array(tool, { maxLength: 3 }),
  toolCalling: fc.constantFrom("native" as const, "xml" as const, undefined),
})
const messages = fc.array(fc.string({ maxLength: 40 }), { maxLength: 4 }).map((texts) =>
  texts.map(
    (text, i): Message => ({
      id: `m${i}`,
      role: i % 2 ? "assistant" : "user",
      ts: 0,
      content: [{ type: "text", text }],
    }),
  ),
)

describe("one reading of a request's count", () => {
  it("counts tools by name, description and schema only, and none in the XML dialect", () => {
    fc.assert(
      fc.property(prompt, (p) => {
        const counted = promptCount(p as CountedPrompt)
        expect(counted.system).toBe(p.text)
        expect(counted.tools).toEqual(
          p.toolCalling === "xml"
            ? []
            : p.tools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters })),
        )
      }),
    )
  })

  it("gives the figure the context manager measures, in every wire format", () => {
    const model = resolveModel("claude-sonnet-4-5").model
    const manager = new ContextManager(counter)
    fc.assert(
      fc.property(prompt, messages, fc.constantFrom(...WIRE_FORMATS), (p, msgs, format) => {
        const measured = manager.measure(msgs, { model, ...promptCount(p), wireFormat: format })
        expect(countRequest(counter, p, msgs, model.tokenizer, overheadOf(format))).toBe(measured.tokens.local)
      }),
      { numRuns: 60 },
    )
  })
})
