import { describe, expect, it } from "vitest"
import { detectConversation } from "./request-detect.js"

const format = (data: unknown) => detectConversation(data)?.format

describe("detectConversation", () => {
  it("reads request bodies by their history field and their marks", () => {
    expect(format({ contents: [] })).toBe("gemini")
    expect(format({ model: "gpt-5", input: "hi" })).toBe("openai-responses")
    expect(format({ model: "claude-x", max_tokens: 5, messages: [] })).toBe("anthropic")
    expect(format({ model: "gpt-4.1", messages: [{ role: "system", content: "s" }] })).toBe("openai-chat")
    expect(format({ model: "deepseek-chat", messages: [] })).toBe("deepseek")
    expect(format({ messages: [{ role: "tool", tool_call_id: "c", content: "x" }] })).toBe("openai-chat")
  })

  it("reads bare histories and wraps them in their format's body", () => {
    const gemini = detectConversation([{ role: "user", parts: [{ text: "hi" }] }])
    expect(gemini).toMatchObject({ format: "gemini", body: { contents: [{ role: "user" }] } })
    const responses = detectConversation([{ type: "function_call", call_id: "c", name: "x", arguments: "{}" }])
    expect(responses).toMatchObject({ format: "openai-responses", body: { input: [{ type: "function_call" }] } })
    expect(format([{ role: "user", content: [{ type: "input_text", text: "hi" }] }])).toBe("openai-responses")
    expect(format([{ role: "user", content: [{ type: "image_url", image_url: { url: "data:," } }] }])).toBe(
      "openai-chat",
    )
    expect(format([{ role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: "x" }] }])).toBe(
      "anthropic",
    )
  })

  it("tells promptline's own messages by their blocks or their ids and times", () => {
    expect(format([{ role: "user", content: [{ type: "tool_result", toolUseId: "t", content: "x" }] }])).toBe(
      "internal",
    )
    expect(format([{ id: "a", ts: 1, role: "user", content: [{ type: "text", text: "x" }] }])).toBe("internal")
    expect(detectConversation([{ id: "a", ts: 1, role: "user", content: [] }])?.body).toEqual([
      { id: "a", ts: 1, role: "user", content: [] },
    ])
  })

  it("takes plain text messages as Anthropic's (they read the same in every format) and refuses other data", () => {
    expect(detectConversation([{ role: "user", content: "hi" }])).toMatchObject({
      format: "anthropic",
      evidence: "plain role/content messages",
    })
    expect(detectConversation({ prompt: "x" })).toBeUndefined()
    expect(detectConversation("text")).toBeUndefined()
  })
})
