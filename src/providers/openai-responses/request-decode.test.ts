import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { fixtureModel, mixedHistory } from "../../../test/fixtures/providers/requests/load.js"
import { anyHistory } from "../../../test/fixtures/providers/requests/sequence-rules.js"
import type { Message } from "../../history/message.js"
import type { EnabledTool } from "../../tools/spec.js"
import type { EncodeOptions } from "../types.js"
import { encodeOpenAIResponses } from "./encode.js"
import { decodeOpenAIResponsesRequest as decode } from "./request-decode.js"

const model = fixtureModel("openai-responses")

const optionsArb: fc.Arbitrary<EncodeOptions> = fc.record(
  {
    maxTokens: fc.integer({ min: 1, max: 100_000 }),
    thinking: fc.oneof(
      fc.constant(false as const),
      fc.record({ effort: fc.constantFrom("low" as const, "high" as const) }),
    ),
    toolChoice: fc.constantFrom("auto" as const, "required" as const, "none" as const, { name: "read_file" }),
    parallelToolCalls: fc.boolean(),
    cache: fc.record({
      sessionId: fc.constantFrom("s-1", "conv 2"),
      retention: fc.constantFrom("in_memory" as const, "24h" as const),
    }),
    stream: fc.boolean(),
    store: fc.boolean(),
    contextManagement: fc.record({
      compaction: fc.oneof(fc.constant(true as const), fc.record({ trigger: fc.integer({ min: 1, max: 1_000_000 }) })),
    }),
  },
  { requiredKeys: [] },
)

describe("OpenAI Responses request decoder: the inverse of the encoder", () => {
  it("re-encoding a decoded body gives the same body, for any history, prompt and options", () => {
    const { prompt } = mixedHistory()
    const withIds = anyHistory(model.id).map((history) =>
      history.map((m, i) => ({
        ...m,
        content: m.content.map((b, j) => (b.type === "thinking" && b.signature ? { ...b, id: `rs_${i}_${j}` } : b)),
      })),
    )
    fc.assert(
      fc.property(withIds, optionsArb, fc.boolean(), (messages, options, context) => {
        const first = encodeOpenAIResponses({
          prompt: { ...prompt, contextMessage: context ? prompt.contextMessage : undefined },
          messages,
          model,
          options,
        })
        const decoded = decode(JSON.parse(JSON.stringify(first.body)))
        expect(decoded.unmodeled).toEqual([])
        expect(decoded.model).toBe(model.id)
        expect(decoded.prompt.text).toBe(prompt.text)
        const again = encodeOpenAIResponses({
          prompt: decoded.prompt,
          messages: decoded.messages,
          model,
          options: decoded.options,
        })
        expect(again.body).toEqual(first.body)
        expect(decoded.messages.map((m) => [m.id, m.ts])).toEqual(decoded.messages.map((_, i) => [`m${i + 1}`, 0]))
      }),
      { numRuns: 300 },
    )
  })

  it("gives back exactly the messages of a history in the encoder's own turn shape", () => {
    // One user turn (results, then text and images) and one assistant turn (reasoning, text, calls) at a time.
    // Blank text is dropped by every encoder; words here have a letter.
    const word = fc.string({ unit: fc.constantFrom("a", "b", " ", "é"), maxLength: 6 }).map((w) => `w${w}`)
    const turn = fc.record({
      text: word,
      image: fc.boolean(),
      reasoning: fc.option(word, { nil: undefined }),
      compaction: fc.option(fc.base64String({ minLength: 4, maxLength: 24 }), { nil: undefined }),
      answer: fc.option(word, { nil: undefined }),
      calls: fc.array(fc.record({ path: word }), { maxLength: 2 }),
    })
    let n = 0
    const history = fc.array(turn, { minLength: 1, maxLength: 4 }).map((turns) => {
      const messages: Message[] = []
      let pending: string[] = []
      turns.forEach((t, i) => {
        const user: Message["content"] = pending.map((id) => ({
          type: "tool_result",
          toolUseId: id,
          content: `out ${id}`,
        }))
        user.push({ type: "text", text: t.text })
        if (t.image) user.push({ type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" })
        messages.push({ id: `m${messages.length + 1}`, role: "user", content: user, ts: 0 })
        const assistant: Message["content"] = []
        // The server puts its compaction item first in the answer.
        if (t.compaction !== undefined)
          assistant.push({ type: "compaction", format: "openai-responses", payload: t.compaction, id: `cmp_${i}` })
        if (t.reasoning !== undefined)
          assistant.push({ type: "thinking", text: t.reasoning, id: `rs_${i}`, signature: `enc_${i}` })
        if (t.answer !== undefined) assistant.push({ type: "text", text: t.answer })
        pending = t.calls.map(() => `call_${n++}`)
        t.calls.forEach((input, j) => {
          assistant.push({ type: "tool_use", id: pending[j]!, name: "read_file", input })
        })
        if (assistant.length > 0)
          messages.push({ id: `m${messages.length + 1}`, role: "assistant", content: assistant, ts: 0 })
        else pending = []
      })
      if (pending.length > 0)
        messages.push({
          id: `m${messages.length + 1}`,
          role: "user",
          content: pending.map((id) => ({ type: "tool_result", toolUseId: id, content: "done" })),
          ts: 0,
        })
      return messages
    })
    fc.assert(
      fc.property(history, (messages) => {
        const { body } = encodeOpenAIResponses({
          prompt: { text: "sys", tools: [] },
          messages,
          model,
          options: { thinking: { effort: "low" } },
        })
        const decoded = decode(body)
        // A reasoning item without a message or call after it is not sent (the API refuses it).
        const sendable = messages.map((m) => {
          if (m.role !== "assistant" || m.content.some((b) => b.type === "text" || b.type === "tool_use")) return m
          return { ...m, content: m.content.filter((b) => b.type !== "thinking") }
        })
        expect(decoded.messages).toEqual(
          sendable.filter((m) => m.content.length > 0).map((m, i) => ({ ...m, id: `m${i + 1}` })),
        )
      }),
      { numRuns: 200 },
    )
  })

  it("reads function tools as client tools and the tool choice, with the schema as the client wrote it", () => {
    const { prompt } = mixedHistory()
    const { body } = encodeOpenAIResponses({
      prompt,
      messages: [],
      model,
      options: { toolChoice: { name: "read_file" } },
    })
    const decoded = decode(body)
    expect(decoded.prompt.tools).toEqual(
      prompt.tools.map(
        (t): EnabledTool => ({
          id: t.name,
          kind: "client",
          name: t.name,
          description: t.description,
          snippet: "",
          guidelines: [],
          parameters: t.parameters,
          examples: {},
        }),
      ),
    )
    expect(decoded.options.toolChoice).toEqual({ name: "read_file" })
  })
})
