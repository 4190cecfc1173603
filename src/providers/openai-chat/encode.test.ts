import fc from "fast-check"
import OpenAI from "openai"
import type {
  ChatCompletionCreateParamsBase,
  ChatCompletionCreateParamsStreaming,
} from "openai/resources/chat/completions"
import { describe, expect, expectTypeOf, it } from "vitest"
import { expectGolden, fixtureModel, mixedHistory } from "../../../test/fixtures/providers/requests/load.js"
import { openapiErrors } from "../../../test/fixtures/providers/requests/openapi.js"
import { startReplayServer, streamLines } from "../../../test/fixtures/providers/requests/replay-server.js"
import { anyHistory, chatViolations, lostContent } from "../../../test/fixtures/providers/requests/sequence-rules.js"
import type { Message } from "../../history/message.js"
import { resolveModel } from "../../models/resolve.js"
import type { ModelInfo } from "../../models/types.js"
import type { EncodeInput, ThinkingOptions } from "../encode.js"
import { CONTINUATION_TEXT } from "../turns.js"
import { compatFor, encodeOpenAIChat } from "./encode.js"

const model = fixtureModel("openai-chat")

function input(overrides: Partial<EncodeInput> = {}): EncodeInput {
  const { prompt, messages } = mixedHistory()
  return { prompt, messages, model, options: { cache: { sessionId: "session-42" } }, ...overrides }
}

const local: ModelInfo = { ...model, id: "qwen3-coder:30b", provider: "ollama", local: true }
const reasoning: ModelInfo = { ...model, id: "o3", capabilities: { ...model.capabilities, thinking: true } }

describe("OpenAI Chat request bodies", () => {
  it("matches the golden body for the mixed history", () => {
    const result = encodeOpenAIChat(input())
    expectGolden("openai-chat", result)
    const roles = result.body.messages.map((m) => m.role)
    expect(roles).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "tool",
      "user",
      "assistant",
      "tool",
      "assistant",
      "tool",
      "user",
      "assistant",
      "tool",
    ])
    expect(result.body.prompt_cache_key).toBe("session-42")
    expect(result.body.max_completion_tokens).toBe(model.maxOutput)
  })

  it("writes the XML dialect as text", () => {
    const { prompt } = mixedHistory()
    const result = encodeOpenAIChat(input({ prompt: { ...prompt, toolCalling: "xml" } }))
    expectGolden("openai-chat-xml", result)
    expect(result.body.tools).toBeUndefined()
    expect(result.body.messages.some((m) => m.role === "tool")).toBe(false)
  })

  it("has the official SDK's request type and is valid against OpenAI's OpenAPI document", () => {
    const { body } = encodeOpenAIChat(
      input({ options: { toolChoice: { name: "read_file" }, parallelToolCalls: false } }),
    )
    expectTypeOf(body).toExtend<ChatCompletionCreateParamsBase>()
    const streaming: ChatCompletionCreateParamsStreaming = { ...body, stream: true }
    expect(streaming.tool_choice).toEqual({ type: "function", function: { name: "read_file" } })
    expect(openapiErrors("CreateChatCompletionRequest", body)).toEqual([])
    // The check can fail: a message with an unknown role is refused.
    const broken = { ...body, messages: [...body.messages, { role: "robot", content: "x" }] }
    expect(openapiErrors("CreateChatCompletionRequest", broken).length).toBeGreaterThan(0)
  })

  it("follows the provider's preset: developer role and effort for OpenAI reasoning models", () => {
    const result = encodeOpenAIChat(
      input({ model: reasoning, options: { thinking: { budgetTokens: 20_000 }, temperature: 1 } }),
    )
    expect(result.body.messages[0]!.role).toBe("developer")
    expect(result.body.reasoning_effort).toBe("high")
    expect("temperature" in result.body).toBe(false)
    expect(result.diagnostics.map((d) => d.code)).toContain("temperature-unsupported")
    expect(encodeOpenAIChat(input({ model: reasoning, options: { thinking: false } })).body.reasoning_effort).toBe(
      "none",
    )
  })

  it("follows the provider's preset: system role, max_tokens and no cache key for a local server", () => {
    const result = encodeOpenAIChat(input({ model: local, options: { temperature: 0.3, thinking: { effort: "low" } } }))
    expect(result.body.messages[0]!.role).toBe("system")
    expect(result.body.max_tokens).toBe(model.maxOutput)
    expect(result.body.max_completion_tokens).toBeUndefined()
    expect(result.body.temperature).toBe(0.3)
    expect(result.body.reasoning_effort).toBeUndefined()
    expect(result.body.prompt_cache_key).toBeUndefined()
    expect(result.body.stream_options).toEqual({ include_usage: true })
  })

  it("lets compatibility settings override the preset", () => {
    const compat = compatFor(local, { toolResultName: true, thinking: "think-tags", streamUsage: false })
    expect(compat).toMatchObject({ systemRole: "system", maxTokensField: "max_tokens", toolResultName: true })
    const messages: Message[] = [
      { id: "u", role: "user", ts: 1, content: [{ type: "text", text: "go" }] },
      {
        id: "a",
        role: "assistant",
        ts: 2,
        content: [
          { type: "thinking", text: "plan", model: local.id },
          { type: "tool_use", id: "c1", name: "read_file", input: { path: "a" } },
        ],
      },
      { id: "r", role: "user", ts: 3, content: [{ type: "tool_result", toolUseId: "c1", content: "A" }] },
    ]
    const { body } = encodeOpenAIChat(
      input({
        model: local,
        messages,
        options: { compat: { toolResultName: true, thinking: "think-tags", streamUsage: false } },
      }),
    )
    expect(body.messages[2]).toMatchObject({ role: "assistant", content: "<think>\nplan\n</think>" })
    expect(body.messages[3]).toEqual({ role: "tool", tool_call_id: "c1", content: "A", name: "read_file" })
    expect(body.stream_options).toBeUndefined()
  })
})

describe("through the official OpenAI SDK", () => {
  it("sends our body unchanged to a real server and reads the recorded stream back", async () => {
    const server = await startReplayServer("openai-chat/openai-text.chunks.txt", "openai-chat")
    try {
      const { body } = encodeOpenAIChat(input())
      const client = new OpenAI({ apiKey: "test-key", baseURL: `${server.url}/v1`, maxRetries: 0 })
      const stream = await client.chat.completions.create({ ...body, stream: true })
      let text = ""
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? ""
      expect(server.requests).toHaveLength(1)
      expect(server.requests[0]!.url).toBe("/v1/chat/completions")
      expect(server.requests[0]!.body).toEqual(JSON.parse(JSON.stringify(body)))
      const expected = streamLines("openai-chat/openai-text.chunks.txt")
        .map((l) => JSON.parse(l) as { choices: { delta: { content?: string } }[] })
        .map((c) => c.choices[0]?.delta.content ?? "")
        .join("")
      expect(expected.length).toBeGreaterThan(0)
      expect(text).toBe(expected)
    } finally {
      await server.close()
    }
  })
})

describe("reasoning efforts fitted to the model's catalog rules", () => {
  const effort = (id: string, thinking: ThinkingOptions | false) => {
    const result = encodeOpenAIChat(input({ model: resolveModel(id).model, options: { thinking } }))
    const fitting = new Set(["thinking-not-disabled", "thinking-effort-adjusted"])
    return {
      sent: result.body.reasoning_effort,
      codes: result.diagnostics.map((d) => d.code).filter((c) => fitting.has(c)),
    }
  }

  it("never sends none to a model that cannot turn reasoning off", () => {
    // Before: "none" for o3 and gpt-5, which both refuse it.
    const o3 = effort("o3", false)
    expect(o3.sent).toBe("low")
    expect(o3.codes).toContain("thinking-not-disabled")
    expect(effort("gpt-5", false).sent).toBe("minimal")
    expect(effort("gpt-5.1", false)).toEqual({ sent: "none", codes: [] })
  })

  it("sends minimal, xhigh and max only where the model takes them", () => {
    const o3 = effort("o3", { effort: "minimal" })
    expect(o3.sent).toBe("low")
    expect(o3.codes).toContain("thinking-effort-adjusted")
    expect(effort("gpt-5.1", { effort: "minimal" }).sent).toBe("low")
    expect(effort("gpt-5", { effort: "minimal" }).sent).toBe("minimal")
    expect(effort("gpt-5", { effort: "xhigh" }).sent).toBe("high")
    expect(effort("gpt-5.2", { effort: "xhigh" }).sent).toBe("xhigh")
    expect(effort("gpt-5.2", { effort: "max" }).sent).toBe("xhigh")
    expect(effort("o1", { effort: "max" }).sent).toBe("high")
  })
})

describe("the message sequence OpenAI Chat accepts", () => {
  it("sends a user turn when nothing in the history can be sent and there is no system prompt", () => {
    const messages: Message[] = [{ id: "u", role: "user", ts: 1, content: [{ type: "text", text: "\n" }] }]
    const result = encodeOpenAIChat(input({ messages, prompt: { text: "", tools: [] } }))
    expect(result.body.messages).toEqual([{ role: "user", content: CONTINUATION_TEXT }])
    expect(result.diagnostics.map((d) => d.code)).toContain("user-turn-inserted")
  })

  it("reports the images of an assistant message it cannot send", () => {
    const messages: Message[] = [
      { id: "u", role: "user", ts: 1, content: [{ type: "text", text: "draw" }] },
      { id: "a", role: "assistant", ts: 2, content: [{ type: "image", mediaType: "image/png", data: "aW1n" }] },
    ]
    const result = encodeOpenAIChat(input({ messages, prompt: { text: "", tools: [] } }))
    expect(result.body.messages).toEqual([{ role: "user", content: "draw" }])
    expect(result.diagnostics.map((d) => d.code)).toContain("assistant-image-dropped")
  })

  it("for any history: a valid sequence, valid against the OpenAPI document, and no content lost", () => {
    const { prompt } = mixedHistory()
    fc.assert(
      fc.property(anyHistory(model.id), fc.boolean(), fc.boolean(), fc.boolean(), (messages, xml, system, context) => {
        const result = encodeOpenAIChat({
          prompt: {
            ...prompt,
            text: system ? prompt.text : "",
            contextMessage: context ? prompt.contextMessage : undefined,
            toolCalling: xml ? "xml" : "native",
          },
          messages,
          model,
        })
        expect(chatViolations(result.body)).toEqual([])
        expect(openapiErrors("CreateChatCompletionRequest", result.body)).toEqual([])
        const kept = messages.map((m) =>
          m.role === "assistant" ? { ...m, content: m.content.filter((b) => b.type !== "image") } : m,
        )
        expect(lostContent(kept, result.body, { ids: !xml })).toEqual([])
      }),
      { numRuns: 300 },
    )
  })
})
