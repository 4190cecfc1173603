/**
 * The gateway's conversation key (conversation-key.ts): the client's header wins; otherwise the turns of one conversation
 * share a key while its system prompt's end changes (a reminder, a time, a git status) or its tools move, and a side
 * call with a system prompt or tools of its own (Qwen Code's memory extraction) gets a key of its own.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { qwenCodeRequest } from "../cache/test-helpers/agent-traffic.js"
import { formatModule } from "../providers/formats.js"
import { CONVERSATION_HEADER, conversationKey, laterConversationKey } from "./conversation-key.js"

type Json = Record<string, unknown>

/** The key of an OpenAI Chat body, decoded as the gateway decodes it. */
const keyOf = (body: Json, headers: Record<string, string> = {}) =>
  conversationKey(headers, formatModule("openai-chat").decodeRequest(body, { model: "gpt-4o" }))

/** The body with its system prompt's text changed by `change`. */
const withSystem = (body: Json, change: (text: string) => string): Json => {
  const [system, ...rest] = body.messages as Json[]
  return { ...body, messages: [{ ...system, content: change(system!.content as string) }, ...rest] }
}

describe("the gateway's conversation key", () => {
  it("is the same for each turn of a conversation and another for a side call with the same first message", () => {
    const main = [1, 2, 3].map((t) => keyOf(qwenCodeRequest("main", t)))
    expect(new Set(main).size).toBe(1)
    expect(keyOf(qwenCodeRequest("memory", 2))).not.toBe(main[0])
    // The same system prompt with no tools (a check the agent makes) is a side call too.
    expect(keyOf({ ...qwenCodeRequest("main", 2), tools: [] })).not.toBe(main[0])
  })

  it("stays the same when the system prompt's end changes each turn or the tools come in another order", () => {
    const body = qwenCodeRequest("main", 3)
    const key = keyOf(body)
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), fc.nat(), (tail, cut) => {
        const turned = withSystem(body, (text) => `${text.slice(0, text.length - (cut % 500))}\n${tail}`)
        const tools = [...(body.tools as Json[])].reverse()
        expect(keyOf({ ...turned, tools })).toBe(key)
      }),
      { numRuns: 50 },
    )
  })

  it("changes with the system prompt's start, and gives way to the client's header", () => {
    const body = qwenCodeRequest("main", 3)
    expect(keyOf(withSystem(body, (text) => `You are another agent.\n${text}`))).not.toBe(keyOf(body))
    expect(keyOf(qwenCodeRequest("memory", 3), { [CONVERSATION_HEADER]: " chat-7 " })).toBe("chat-7")
  })

  it("is the same worked out after the answer from the body as from the request decoded on its way", () => {
    const body = qwenCodeRequest("main", 2)
    expect(laterConversationKey({}, "openai-chat", body, { model: "gpt-4o" })).toBe(keyOf(body))
    expect(laterConversationKey({ [CONVERSATION_HEADER]: "chat-7" }, "openai-chat", "not json", {})).toBe("chat-7")
    // A body its decoder cannot read, or no object at all, has no key of its own.
    expect(laterConversationKey({}, "openai-chat", { messages: "none" }, {})).toBe("")
    expect(laterConversationKey({}, "openai-chat", [body], {})).toBe("")
  })
})
