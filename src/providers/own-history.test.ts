import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { Block, Message } from "../history/message.js"
import { parseConversation } from "./conversation.js"
import { detectConversation } from "./request-detect.js"

/**
 * promptline's own history format, as every command that takes `--history` reads it (request, fit, inspect,
 * compact, diff: one reader, parseConversation). Its blocks of type text, tool_use and redacted_thinking are
 * written as Anthropic writes them, so a history that starts with one of those must still be read as promptline's.
 */

const id = fc.stringMatching(/^[a-z][a-z0-9_]{0,7}$/)
const text = fc.string({ maxLength: 12 })

/** A conversation of promptline messages: roles alternate, each tool call is answered by the next message. */
const conversation = fc
  .array(
    fc.record({
      lead: fc.constantFrom<Block[]>(
        [],
        [{ type: "redacted_thinking", data: "opaque" }],
        [{ type: "thinking", text: "hmm", signature: "sig" }],
      ),
      say: fc.option(text, { nil: undefined }),
      call: fc.option(fc.record({ id, name: id, input: fc.dictionary(id, text, { maxKeys: 2 }) }), { nil: undefined }),
      image: fc.boolean(),
    }),
    { minLength: 1, maxLength: 6 },
  )
  .map((turns) => {
    const out: Message[] = []
    turns.forEach((t, i) => {
      const callId = t.call ? `${t.call.id}_${i}` : undefined
      const assistant: Block[] = [...t.lead]
      if (t.say !== undefined) assistant.push({ type: "text", text: t.say })
      if (t.call && callId) assistant.push({ type: "tool_use", id: callId, name: t.call.name, input: t.call.input })
      if (assistant.length === 0) assistant.push({ type: "text", text: "ok" })
      out.push({ id: `a${i}`, role: "assistant", ts: i * 2, content: assistant })
      const user: Block[] = callId ? [{ type: "tool_result", toolUseId: callId, content: "done" }] : []
      if (t.image) user.push({ type: "image", mediaType: "image/png", data: "AAAA" })
      if (user.length === 0) user.push({ type: "text", text: "go on" })
      out.push({ id: `u${i}`, role: "user", ts: i * 2 + 1, content: user })
    })
    return out
  })

describe("promptline's own history is read as its own", () => {
  it("whatever its first block is (property): detected as internal and read back unchanged", () => {
    fc.assert(
      fc.property(conversation, fc.boolean(), (history, userFirst) => {
        const messages = userFirst
          ? [
              { id: "task", role: "user" as const, ts: 0, content: [{ type: "text" as const, text: "do it" }] },
              ...history,
            ]
          : history
        expect(detectConversation(JSON.parse(JSON.stringify(messages)))?.format).toBe("internal")
        const read = parseConversation(JSON.stringify(messages), "history.json")
        expect(read.format).toBe("internal")
        expect(read.messages).toEqual(messages)
      }),
      { numRuns: 200 },
    )
  })

  it("one that starts with an assistant tool call (the reported case), with and without ids and times", () => {
    const history: Message[] = [
      { id: "a1", role: "assistant", ts: 1, content: [{ type: "tool_use", id: "c1", name: "read_file", input: {} }] },
      { id: "u1", role: "user", ts: 2, content: [{ type: "tool_result", toolUseId: "c1", content: "x" }] },
    ]
    expect(parseConversation(JSON.stringify(history), "h.json")).toMatchObject({
      format: "internal",
      evidence: "element [0] has an id and a time",
      messages: history,
    })
    const bare = history.map(({ role, content }) => ({ role, content }))
    expect(parseConversation(JSON.stringify(bare), "h.json")).toMatchObject({
      format: "internal",
      evidence: "element [1] is a promptline block",
      messages: [
        { id: "m1", ts: 0, ...bare[0] },
        { id: "m2", ts: 0, ...bare[1] },
      ],
    })
  })

  it("an Anthropic history with the same opening is still Anthropic's, by its tool_result", () => {
    const anthropic = [
      { role: "assistant", content: [{ type: "tool_use", id: "c1", name: "read_file", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "c1", content: "x" }] },
    ]
    expect(detectConversation(anthropic)).toMatchObject({
      format: "anthropic",
      evidence: 'element [1] has an Anthropic "tool_result" block',
    })
    const read = parseConversation(JSON.stringify(anthropic), "h.json")
    expect(read.messages.map((m) => m.content)).toEqual([
      [{ type: "tool_use", id: "c1", name: "read_file", input: {} }],
      [{ type: "tool_result", toolUseId: "c1", content: "x" }],
    ])
  })
})
