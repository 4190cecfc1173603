import fc from "fast-check"
import OpenAI from "openai"
import type { ChatCompletionCreateParamsBase } from "openai/resources/chat/completions"
import { describe, expect, expectTypeOf, it } from "vitest"
import { expectGolden, fixtureModel, mixedHistory } from "../../../test/fixtures/providers/requests/load.js"
import { openapiErrors } from "../../../test/fixtures/providers/requests/openapi.js"
import { startReplayServer } from "../../../test/fixtures/providers/requests/replay-server.js"
import { anyHistory, chatViolations, lostContent } from "../../../test/fixtures/providers/requests/sequence-rules.js"
import type { Message } from "../../history/message.js"
import type { EncodeInput } from "../encode.js"
import { CONTINUATION_TEXT } from "../turns.js"
import { deepSeekReasoningRule, encodeDeepSeek } from "./encode.js"

const model = fixtureModel("deepseek")
const r1 = { ...model, id: "deepseek-r1:32b", provider: "ollama" }

function input(overrides: Partial<EncodeInput> = {}): EncodeInput {
  const { prompt, messages } = mixedHistory()
  return { prompt, messages, model, options: { thinking: { effort: "high" } }, ...overrides }
}

const think = (text: string) => ({ type: "thinking" as const, text, model: model.id })

/** Two user turns: the first with a tool call, the second answered in text only. */
const own: Message[] = [
  { id: "u1", role: "user", ts: 1, content: [{ type: "text", text: "read a" }] },
  {
    id: "a1",
    role: "assistant",
    ts: 2,
    content: [think("need a"), { type: "tool_use", id: "c1", name: "read_file", input: { path: "a" } }],
  },
  { id: "r1", role: "user", ts: 3, content: [{ type: "tool_result", toolUseId: "c1", content: "A" }] },
  { id: "a2", role: "assistant", ts: 4, content: [{ type: "text", text: "a says A" }] },
  { id: "u2", role: "user", ts: 5, content: [{ type: "text", text: "thanks" }] },
  { id: "a3", role: "assistant", ts: 6, content: [think("polite"), { type: "text", text: "welcome" }] },
  { id: "u3", role: "user", ts: 7, content: [{ type: "text", text: "bye" }] },
]

describe("DeepSeek request bodies", () => {
  it("matches the golden body for the mixed history", () => {
    const result = encodeDeepSeek(input())
    expectGolden("deepseek", result)
    expect(result.body.thinking).toEqual({ type: "enabled" })
    expect(result.body.reasoning_effort).toBe("high")
    // DeepSeek reads no images: the portability pass left notes instead.
    expect(JSON.stringify(result.body)).not.toContain("image_url")
  })

  it("sends the tool choice and the stream settings as the OpenAI Chat encoder does", () => {
    const named = encodeDeepSeek(input({ options: { toolChoice: { name: "read_file" }, stream: false } })).body
    expect(named.tool_choice).toEqual({ type: "function", function: { name: "read_file" } })
    expect(named.stream).toBe(false)
    expect(named.stream_options).toBeUndefined()
    const required = encodeDeepSeek(input({ options: { toolChoice: "required" } })).body
    expect(required.tool_choice).toBe("required")
    expect(required.stream).toBe(true)
    expect(required.stream_options).toEqual({ include_usage: true })
    expect(encodeDeepSeek(input({ options: {} })).body.tool_choice).toBeUndefined()
  })

  it("echoes reasoning in tool-calling turns (empty when unknown) and leaves it out elsewhere", () => {
    const { body } = encodeDeepSeek(input({ messages: own, prompt: { text: "sys", tools: [] } }))
    const assistants = body.messages.filter((m) => m.role === "assistant")
    expect(assistants.map((m) => m.reasoning_content)).toEqual(["need a", "", undefined])
    expect("reasoning_content" in assistants[2]!).toBe(false)
  })

  it("strips reasoning and merges same-role messages for the first reasoner generation", () => {
    expect(deepSeekReasoningRule(r1)).toBe("strip-and-merge")
    expect(deepSeekReasoningRule({ id: "deepseek-reasoner" })).toBe("echo-in-tool-turns")
    expect(deepSeekReasoningRule({ id: "deepseek/deepseek-r1-0528" })).toBe("strip-and-merge")
    const messages: Message[] = [
      { id: "u1", role: "user", ts: 1, content: [{ type: "text", text: "one" }] },
      { id: "u2", role: "user", ts: 2, content: [{ type: "text", text: "two" }] },
      {
        id: "a1",
        role: "assistant",
        ts: 3,
        content: [
          { type: "thinking", text: "hm", model: r1.id },
          { type: "text", text: "x" },
        ],
      },
      { id: "a2", role: "assistant", ts: 4, content: [{ type: "text", text: "y" }] },
    ]
    const { body } = encodeDeepSeek(input({ model: r1, messages, prompt: { text: "sys", tools: [] } }))
    expect(body.messages).toEqual([
      { role: "system", content: "sys" },
      { role: "user", content: "one\n\ntwo" },
      { role: "assistant", content: "x\n\ny" },
    ])
    expect(body.thinking).toBeUndefined()
  })

  it("turns thinking off on request", () => {
    const { body } = encodeDeepSeek(input({ options: { thinking: false } }))
    expect(body.thinking).toEqual({ type: "disabled" })
    expect(body.reasoning_effort).toBeUndefined()
  })

  it("is an OpenAI Chat body plus DeepSeek's fields", () => {
    const { body } = encodeDeepSeek(input())
    expectTypeOf(body).toExtend<ChatCompletionCreateParamsBase>()
    expect(openapiErrors("CreateChatCompletionRequest", body)).toEqual([])
  })
})

describe("through the official OpenAI SDK, as DeepSeek documents", () => {
  it("sends our body unchanged, DeepSeek's extra fields included", async () => {
    const server = await startReplayServer("deepseek/deepseek-tool-call.chunks.txt", "openai-chat")
    try {
      const { body } = encodeDeepSeek(input({ messages: own }))
      const client = new OpenAI({ apiKey: "test-key", baseURL: server.url, maxRetries: 0 })
      const stream = await client.chat.completions.create({ ...body, stream: true })
      const names: string[] = []
      for await (const chunk of stream)
        for (const call of chunk.choices[0]?.delta.tool_calls ?? [])
          if (call.function?.name) names.push(call.function.name)
      expect(server.requests[0]!.url).toBe("/chat/completions")
      expect(server.requests[0]!.body).toEqual(JSON.parse(JSON.stringify(body)))
      expect((server.requests[0]!.body as { thinking: unknown }).thinking).toEqual({ type: "enabled" })
      expect(names.length).toBeGreaterThan(0)
    } finally {
      await server.close()
    }
  })
})

describe("the message sequence DeepSeek accepts", () => {
  it("puts a user turn after the system prompt when an R1 history starts with the assistant", () => {
    const messages: Message[] = [
      { id: "a", role: "assistant", ts: 1, content: [{ type: "text", text: "Earlier answer." }] },
      { id: "u", role: "user", ts: 2, content: [{ type: "text", text: "go on" }] },
    ]
    const result = encodeDeepSeek(input({ model: r1, messages, prompt: { text: "sys", tools: [] } }))
    expect(result.body.messages).toEqual([
      { role: "system", content: "sys" },
      { role: "user", content: CONTINUATION_TEXT },
      { role: "assistant", content: "Earlier answer." },
      { role: "user", content: "go on" },
    ])
    expect(result.diagnostics.map((d) => d.code)).toContain("user-turn-inserted")
    // The thinking-mode generation takes an assistant message first.
    const v4 = encodeDeepSeek(input({ messages, prompt: { text: "sys", tools: [] } }))
    expect(v4.body.messages.map((m) => m.role)).toEqual(["system", "assistant", "user"])
  })

  it("sends no assistant message left empty when its reasoning is not sent", () => {
    for (const target of [model, r1]) {
      const messages: Message[] = [
        { id: "u", role: "user", ts: 1, content: [{ type: "text", text: "hi" }] },
        { id: "a", role: "assistant", ts: 2, content: [{ type: "thinking", text: "only thinking", model: target.id }] },
        { id: "u2", role: "user", ts: 3, content: [{ type: "text", text: "well?" }] },
      ]
      const result = encodeDeepSeek(input({ model: target, messages, prompt: { text: "sys", tools: [] } }))
      expect(chatViolations(result.body, target === r1)).toEqual([])
      expect(result.body.messages.some((m) => m.role === "assistant")).toBe(false)
    }
  })

  it("for any history and both generations: a valid sequence and no content lost", () => {
    const { prompt } = mixedHistory()
    fc.assert(
      fc.property(anyHistory(model.id), fc.boolean(), fc.boolean(), fc.boolean(), (messages, xml, first, context) => {
        const target = first ? r1 : model
        const result = encodeDeepSeek({
          prompt: {
            ...prompt,
            contextMessage: context ? prompt.contextMessage : undefined,
            toolCalling: xml ? "xml" : "native",
          },
          messages,
          model: target,
        })
        expect(chatViolations(result.body, first)).toEqual([])
        const kept = messages.map((m) =>
          m.role === "assistant" ? { ...m, content: m.content.filter((b) => b.type !== "image") } : m,
        )
        expect(lostContent(kept, result.body, { ids: !xml, images: false })).toEqual([])
      }),
      { numRuns: 300 },
    )
  })
})
