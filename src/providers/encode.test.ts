import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { fixtureModel, mixedHistory } from "../../test/fixtures/providers/requests/load.js"
import type { Block, Message } from "../history/message.js"
import { WIRE_FORMATS, type WireFormat } from "../models/types.js"
import { encodeAnthropic } from "./anthropic/encode.js"
import { encodeRequest } from "./encode.js"

/** Messy histories: random roles, parallel calls, results for unknown or repeated ids, odd ids, thinking. */
const ids = fc.constantFrom("a", "b", "call.1", "x".repeat(70), "toolu_1")
const block: fc.Arbitrary<Block> = fc.oneof(
  fc.record({ type: fc.constant("text" as const), text: fc.string({ minLength: 1, maxLength: 8 }) }),
  fc.record({
    type: fc.constant("tool_use" as const),
    id: ids,
    name: fc.constantFrom("read_file", "write_to_file"),
    input: fc.constant({ path: "a" }),
  }),
  fc.record({ type: fc.constant("tool_result" as const), toolUseId: ids, content: fc.string({ maxLength: 8 }) }),
  fc.record({
    type: fc.constant("thinking" as const),
    text: fc.string({ maxLength: 8 }),
    signature: fc.constant("sig"),
    model: fc.constantFrom("claude-sonnet-4-5", "gpt-5", "other"),
  }),
)
const history = fc.array(
  fc.record({
    id: fc.string({ minLength: 1, maxLength: 3 }),
    role: fc.constantFrom("user" as const, "assistant" as const),
    content: fc.array(block, { minLength: 1, maxLength: 4 }),
    ts: fc.nat(),
  }),
  { maxLength: 8 },
)

/** The call ids of each tool-calling turn of a body, and the result ids that answer it right after. */
function pairs(format: WireFormat, body: unknown): { calls: string[]; results: string[] }[] {
  const out: { calls: string[]; results: string[] }[] = []
  if (format === "anthropic") {
    const messages = (body as { messages: { content: { type: string; id?: string; tool_use_id?: string }[] }[] })
      .messages
    messages.forEach((m, i) => {
      const calls = m.content.filter((b) => b.type === "tool_use").map((b) => b.id!)
      if (calls.length === 0) return
      const next = messages[i + 1]?.content ?? []
      out.push({ calls, results: next.slice(0, calls.length).map((b) => b.tool_use_id ?? "-") })
    })
  } else if (format === "openai-chat" || format === "deepseek") {
    type Chat = { role: string; tool_calls?: { id: string }[]; tool_call_id?: string }
    const messages = (body as { messages: Chat[] }).messages
    messages.forEach((m, i) => {
      const calls = (m.tool_calls ?? []).map((c) => c.id)
      if (calls.length === 0) return
      out.push({ calls, results: messages.slice(i + 1, i + 1 + calls.length).map((t) => t.tool_call_id ?? "-") })
    })
  } else if (format === "openai-responses") {
    const items = (body as { input: { type: string; call_id?: string }[] }).input
    const calls = items.filter((i) => i.type === "function_call").map((i) => i.call_id!)
    const results = items.filter((i) => i.type === "function_call_output").map((i) => i.call_id!)
    out.push({ calls, results })
  } else {
    type Content = { role: string; parts: { functionCall?: { name: string }; functionResponse?: { name: string } }[] }
    const contents = (body as { contents: Content[] }).contents
    contents.forEach((c, i) => {
      const calls = c.parts.filter((p) => p.functionCall).map((p) => p.functionCall!.name)
      if (calls.length === 0) return
      const next = contents[i + 1]?.parts ?? []
      out.push({ calls, results: next.filter((p) => p.functionResponse).map((p) => p.functionResponse!.name) })
    })
  }
  return out
}

describe("encodeRequest", () => {
  it("dispatches to the format's encoder", () => {
    const { prompt, messages } = mixedHistory()
    const input = { prompt, messages, model: fixtureModel("anthropic") }
    expect(encodeRequest("anthropic", input)).toEqual(encodeAnthropic(input))
  })

  it("for any history and every format: each call answered right after it, same bytes twice, input untouched", () => {
    const { prompt } = mixedHistory()
    fc.assert(
      fc.property(history, fc.constantFrom(...WIRE_FORMATS), fc.boolean(), (raw, format, xml) => {
        const messages = JSON.parse(JSON.stringify(raw)) as Message[]
        const before = JSON.stringify(messages)
        const input = {
          prompt: { ...prompt, toolCalling: xml ? ("xml" as const) : ("native" as const) },
          messages,
          model: fixtureModel(format),
        }
        const first = encodeRequest(format, input)
        expect(JSON.stringify(encodeRequest(format, input).body)).toBe(JSON.stringify(first.body))
        expect(JSON.stringify(messages)).toBe(before)
        const found = pairs(format, first.body)
        if (xml) expect(found.every((p) => p.calls.length === 0)).toBe(true)
        for (const p of found) {
          expect(p.results).toEqual(p.calls)
          for (const id of p.calls) expect(id).toMatch(/^[a-zA-Z0-9_-]{1,64}$/)
        }
      }),
      { numRuns: 300 },
    )
  })
})
