import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { Block, Message, TextBlock } from "../history/message.js"
import { resolveModel } from "../models/resolve.js"
import type { ModelInfo } from "../models/types.js"
import { IMAGE_OMITTED_TEXT, isSameModel, MISSING_RESULT_TEXT, portHistory } from "./portability.js"

const target: ModelInfo = {
  id: "target-model",
  aliases: ["target-model-2026"],
  provider: "anthropic",
  family: "claude",
  contextWindow: 200_000,
  maxOutput: 8192,
  tokenizer: "claude",
  capabilities: { nativeTools: true, images: true, thinking: true },
  source: "test",
}
const textOnly: ModelInfo = { ...target, capabilities: { ...target.capabilities, images: false } }

const user = (id: string, ...content: Block[]): Message => ({ id, role: "user", content, ts: 0 })
const assistant = (id: string, ...content: Block[]): Message => ({ id, role: "assistant", content, ts: 0 })

describe("portHistory", () => {
  it("keeps thinking and signatures for the model that made them, and turns others' into text", () => {
    const history = [
      user("u", { type: "text", text: "hi" }),
      assistant(
        "a",
        { type: "thinking", text: "mine", signature: "s1", model: "target-model-2026" },
        { type: "thinking", text: "theirs", signature: "s2", model: "other" },
        { type: "redacted_thinking", data: "x", model: "other" },
        { type: "redacted_thinking", data: "y", model: "target-model" },
        { type: "tool_use", id: "t1", name: "f", input: {}, signature: "g1", model: "other" },
        { type: "tool_use", id: "t2", name: "f", input: {}, signature: "g2", model: "target-model" },
      ),
      user(
        "r",
        { type: "tool_result", toolUseId: "t1", content: "1" },
        { type: "tool_result", toolUseId: "t2", content: "2" },
      ),
    ]
    const { messages, diagnostics } = portHistory(history, target)
    expect(messages[1]!.content).toEqual([
      { type: "thinking", text: "mine", signature: "s1", model: "target-model-2026" },
      { type: "text", text: "theirs" },
      { type: "redacted_thinking", data: "y", model: "target-model" },
      { type: "tool_use", id: "t1", name: "f", input: {} },
      { type: "tool_use", id: "t2", name: "f", input: {}, signature: "g2", model: "target-model" },
    ])
    expect(diagnostics.map((d) => d.code).sort()).toEqual([
      "redacted-thinking-dropped",
      "signature-dropped",
      "thinking-as-text",
    ])
  })

  it("knows a model by any id the catalog resolves to the same row", () => {
    const forms = [
      "claude-sonnet-4-5-20250929",
      "claude-sonnet-4-5",
      "claude-sonnet-4.5",
      "anthropic/claude-sonnet-4.5",
    ]
    for (const targetId of forms) {
      const model = resolveModel(targetId).model
      for (const recorded of forms) expect(isSameModel(recorded, model), `${recorded} vs ${targetId}`).toBe(true)
      expect(isSameModel("claude-opus-4-1", model)).toBe(false)
      expect(isSameModel("claude-sonnet-4-5-unknown-variant", model)).toBe(false)
    }
    const history = [assistant("a", { type: "thinking", text: "t", signature: "s", model: "claude-sonnet-4-5" })]
    const { messages } = portHistory(history, resolveModel("claude-sonnet-4-5-20250929").model)
    expect(messages[0]!.content[0]).toEqual({ type: "thinking", text: "t", signature: "s", model: "claude-sonnet-4-5" })
  })

  it("compares raw ids when the catalog knows neither", () => {
    expect(isSameModel("house-model", { ...target, id: "house-model" })).toBe(true)
    expect(isSameModel("house-model-2", { ...target, id: "house-model" })).toBe(false)
  })

  it("treats blocks without a model as the target's, unless told otherwise", () => {
    const history = [assistant("a", { type: "thinking", text: "t", signature: "s" })]
    expect(portHistory(history, target).messages[0]!.content[0]!.type).toBe("thinking")
    expect(portHistory(history, target, { unknownOrigin: "other" }).messages[0]!.content[0]).toEqual({
      type: "text",
      text: "t",
    })
  })

  it("answers every call in the next message, results first and in call order", () => {
    const history = [
      user("u", { type: "text", text: "go" }),
      assistant(
        "a",
        { type: "tool_use", id: "1", name: "f", input: {} },
        { type: "tool_use", id: "2", name: "g", input: {} },
      ),
      user("r", { type: "text", text: "also this" }, { type: "tool_result", toolUseId: "2", content: "two" }),
      assistant("b", { type: "tool_use", id: "3", name: "h", input: {} }),
      assistant("c", { type: "text", text: "done" }),
    ]
    const { messages, diagnostics } = portHistory(history, target)
    expect(messages.map((m) => m.id)).toEqual(["u", "a", "r", "b", "b-results", "c"])
    expect(messages[2]!.content).toEqual([
      { type: "tool_result", toolUseId: "1", content: MISSING_RESULT_TEXT, isError: true },
      { type: "tool_result", toolUseId: "2", content: "two" },
      { type: "text", text: "also this" },
    ])
    expect(messages[4]!.content).toEqual([
      { type: "tool_result", toolUseId: "3", content: MISSING_RESULT_TEXT, isError: true },
    ])
    expect(diagnostics.filter((d) => d.code === "tool-result-missing")).toHaveLength(2)
  })

  it("sends results that answer no call as text", () => {
    const history = [user("u", { type: "tool_result", toolUseId: "ghost", content: "boo", isError: true })]
    const { messages, diagnostics } = portHistory(history, target)
    expect(messages[0]!.content).toEqual([{ type: "text", text: "Result of tool call ghost (error):\nboo" }])
    expect(diagnostics[0]!.code).toBe("tool-result-orphaned")
  })

  it("keeps the images of a result sent as text, as images after it", () => {
    const image = { type: "image" as const, mediaType: "image/png", data: "aW1n" }
    const history = [
      user("u", { type: "tool_result", toolUseId: "ghost", content: [{ type: "text", text: "shot" }, image] }),
    ]
    const { messages } = portHistory(history, target)
    expect(messages[0]!.content).toEqual([{ type: "text", text: "Result of tool call ghost:\nshot\n[image]" }, image])
  })

  it("drops empty and whitespace-only text, and unsigned whitespace thinking, and counts them", () => {
    const history = [
      user("u", { type: "text", text: " " }, { type: "text", text: "go" }),
      assistant("a", { type: "thinking", text: "\n", model: "target-model" }, { type: "text", text: "\n\n" }),
      assistant("b", { type: "text", text: "done" }),
    ]
    const { messages, diagnostics } = portHistory(history, target)
    expect(messages).toEqual([user("u", { type: "text", text: "go" }), assistant("b", { type: "text", text: "done" })])
    expect(diagnostics.map((d) => d.code)).toEqual(["message-dropped", "text-blank-dropped", "thinking-empty-dropped"])
  })

  it("rewrites ids the same way in a call and its result, and never gives two calls one id", () => {
    const long = "x".repeat(80)
    const history = [
      assistant(
        "a",
        { type: "tool_use", id: "call.1", name: "f", input: {} },
        { type: "tool_use", id: long, name: "f", input: {} },
      ),
      user(
        "r",
        { type: "tool_result", toolUseId: long, content: "L" },
        { type: "tool_result", toolUseId: "call.1", content: "1" },
      ),
      assistant("b", { type: "tool_use", id: "call.1", name: "f", input: {} }),
      user("s", { type: "tool_result", toolUseId: "call.1", content: "again" }),
    ]
    const { messages, toolIds } = portHistory(history, target)
    const calls = [messages[0]!, messages[2]!].flatMap((m) => m.content).map((b) => (b as { id: string }).id)
    const results = [messages[1]!, messages[3]!]
      .flatMap((m) => m.content)
      .map((b) => (b as { toolUseId: string }).toolUseId)
    expect(calls).toEqual(results)
    expect(new Set(calls).size).toBe(3)
    for (const id of calls) expect(id).toMatch(/^[a-zA-Z0-9_-]{1,64}$/)
    expect(Object.keys(toolIds).sort()).toEqual(["call.1", long].sort())
  })

  it("replaces images by a note for a model that does not read them", () => {
    const png = { type: "image" as const, mediaType: "image/png", data: "AA==" }
    const history = [
      assistant("a", { type: "tool_use", id: "1", name: "shot", input: {} }),
      user("r", { type: "tool_result", toolUseId: "1", content: [png] }, png),
    ]
    const { messages, diagnostics } = portHistory(history, textOnly)
    expect(messages[1]!.content).toEqual([
      { type: "tool_result", toolUseId: "1", content: [{ type: "text", text: IMAGE_OMITTED_TEXT }] },
      { type: "text", text: IMAGE_OMITTED_TEXT },
    ])
    expect(diagnostics[0]!.message).toMatch(/^2 images/)
  })

  it("puts the context message first in the first user message", () => {
    const history = [user("u", { type: "text", text: "task" })]
    expect(portHistory(history, target, { contextMessage: "facts" }).messages[0]!.content).toEqual([
      { type: "text", text: "facts" },
      { type: "text", text: "task" },
    ])
    expect(portHistory([], target, { contextMessage: "facts" }).messages).toEqual([
      { id: "context", role: "user", content: [{ type: "text", text: "facts" }], ts: 0 },
    ])
  })
})

const ids = fc.constantFrom("a", "b", "call.1", "toolu_01", "x".repeat(70), "with space", "", "ü")
const models = fc.constantFrom<string | undefined>("target-model", "target-model-2026", "other", undefined)
const block: fc.Arbitrary<Block> = fc.oneof(
  fc.record({ type: fc.constant("text" as const), text: fc.string({ maxLength: 12 }) }),
  fc.record({ type: fc.constant("image" as const), mediaType: fc.constant("image/png"), data: fc.constant("AA==") }),
  fc.record({
    type: fc.constant("tool_use" as const),
    id: ids,
    name: fc.constantFrom("f", "g"),
    input: fc.constant({}),
    signature: fc.option(fc.constant("sig"), { nil: undefined }),
    model: models,
  }),
  fc.record({
    type: fc.constant("tool_result" as const),
    toolUseId: ids,
    content: fc.oneof(fc.string({ maxLength: 8 }), fc.constant<TextBlock[]>([{ type: "text", text: "r" }])),
  }),
  fc.record({
    type: fc.constant("thinking" as const),
    text: fc.string({ maxLength: 8 }),
    signature: fc.option(fc.constant("sig"), { nil: undefined }),
    model: models,
  }),
  fc.record({ type: fc.constant("redacted_thinking" as const), data: fc.constant("r"), model: models }),
)
const history = fc.array(
  fc.record({
    id: fc.string({ minLength: 1, maxLength: 4 }),
    role: fc.constantFrom("user" as const, "assistant" as const),
    content: fc.array(block, { maxLength: 5 }),
    ts: fc.nat(),
  }),
  { maxLength: 10 },
)

/** Removes `undefined` fields the generator produces, as JSON would. */
const plain = <T>(value: T): T => JSON.parse(JSON.stringify(value))

describe("portHistory invariants (generated histories)", () => {
  it("pairs every call with a result in the next message, results first", () => {
    fc.assert(
      fc.property(history, (raw) => {
        const { messages } = portHistory(plain(raw), textOnly)
        messages.forEach((m, i) => {
          const calls = m.content.filter((b) => b.type === "tool_use")
          const results = m.content.filter((b) => b.type === "tool_result")
          if (m.role === "assistant") expect(results).toHaveLength(0)
          if (m.role === "user") {
            const previous = messages[i - 1]
            const expected = previous?.role === "assistant" ? previous.content.filter((b) => b.type === "tool_use") : []
            expect(results.map((r) => r.toolUseId)).toEqual(expected.map((c) => (c as { id: string }).id))
            expect(m.content.slice(0, results.length).every((b) => b.type === "tool_result")).toBe(true)
          }
          if (calls.length > 0) expect(messages[i + 1]?.role).toBe("user")
        })
      }),
    )
  })

  it("gives every call a unique provider-safe id", () => {
    fc.assert(
      fc.property(history, (raw) => {
        const { messages } = portHistory(plain(raw), target)
        const callIds = messages.flatMap((m) => m.content).flatMap((b) => (b.type === "tool_use" ? [b.id] : []))
        for (const id of callIds) expect(id).toMatch(/^[a-zA-Z0-9_-]{1,64}$/)
        expect(new Set(callIds).size).toBe(callIds.length)
      }),
    )
  })

  it("sends thinking, redacted thinking and signatures only back to their model", () => {
    fc.assert(
      fc.property(history, (raw) => {
        const { messages } = portHistory(plain(raw), target)
        for (const b of messages.flatMap((m) => m.content)) {
          if (b.type === "thinking" || b.type === "redacted_thinking")
            expect([undefined, "target-model", "target-model-2026"]).toContain(b.model)
          if (b.type === "tool_use" && b.signature !== undefined)
            expect([undefined, "target-model", "target-model-2026"]).toContain(b.model)
        }
      }),
    )
  })

  it("loses no text, leaves its input alone, and gives the same output twice (and on its own output)", () => {
    fc.assert(
      fc.property(history, (raw) => {
        const input = plain(raw).map((m) => ({ ...m, content: m.content.filter((b) => b.type !== "image") }))
        const before = JSON.stringify(input)
        const once = portHistory(input, target)
        expect(JSON.stringify(input)).toBe(before)
        expect(portHistory(input, target)).toEqual(once)
        expect(portHistory(once.messages, target).messages).toEqual(once.messages)
        const sent = JSON.stringify(once.messages)
        for (const b of input.flatMap((m) => m.content)) {
          if (b.type === "text" && b.text.trim() !== "") expect(sent).toContain(JSON.stringify(b.text).slice(1, -1))
          if (b.type === "tool_result" && typeof b.content === "string")
            expect(sent).toContain(JSON.stringify(b.content).slice(1, -1))
        }
      }),
    )
  })
})

describe("provider compaction items", () => {
  const claude = resolveModel("claude-sonnet-4-5").model
  const item: Block = { type: "compaction", format: "anthropic", provider: "anthropic", summary: "s", payload: "{}" }
  const history: Message[] = [
    { id: "u", role: "user", ts: 0, content: [{ type: "text", text: "task" }] },
    { id: "a", role: "assistant", ts: 0, content: [item, { type: "text", text: "ok" }] },
  ]

  it("go back to the wire format and provider that made them", () => {
    const ported = portHistory(history, claude, { format: "anthropic" })
    expect(ported.messages[1]!.content).toEqual([item, { type: "text", text: "ok" }])
    expect(ported.diagnostics.map((d) => d.code)).not.toContain("compaction-dropped")
  })

  it("are dropped with a warning for another format, another provider, or when the format is not said", () => {
    const gpt = resolveModel("gpt-5").model
    for (const [model, format] of [
      [gpt, "openai-responses"],
      [{ ...claude, provider: "bedrock" }, "anthropic"],
      [claude, undefined],
    ] as const) {
      const ported = portHistory(history, model, format ? { format } : {})
      expect(ported.messages[1]!.content).toEqual([{ type: "text", text: "ok" }])
      expect(ported.diagnostics.find((d) => d.code === "compaction-dropped")?.level).toBe("warning")
    }
  })
})
