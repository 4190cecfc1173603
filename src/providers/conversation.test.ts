import { mkdtemp, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { FileError } from "../errors.js"
import type { Message } from "../history/message.js"
import { resolveModel } from "../models/resolve.js"
import { parseConversation, readConversation } from "./conversation.js"
import { encodeRequest } from "./encode.js"
import { WIRE_FORMAT_MODULES } from "./formats.js"

const history: Message[] = [
  { id: "m1", role: "user", content: [{ type: "text", text: "read a.ts" }], ts: 0 },
  {
    id: "m2",
    role: "assistant",
    content: [{ type: "tool_use", id: "call_1", name: "read_file", input: { path: "a.ts" } }],
    ts: 0,
  },
  { id: "m3", role: "user", content: [{ type: "tool_result", toolUseId: "call_1", content: "export {}" }], ts: 0 },
  { id: "m4", role: "assistant", content: [{ type: "text", text: "It is empty." }], ts: 0 },
]

describe("parseConversation", () => {
  it("reads every format's encoded request back to the same history, with its system prompt", () => {
    const model = resolveModel("claude-sonnet-4-5").model
    for (const format of Object.keys(WIRE_FORMAT_MODULES) as (keyof typeof WIRE_FORMAT_MODULES)[]) {
      const { body } = encodeRequest(format, {
        prompt: { text: "You are terse.", tools: [] },
        messages: history,
        model,
        options: { cache: false },
      })
      const read = parseConversation(JSON.stringify(body), "req.json")
      expect(read.format === format || (format === "deepseek" && read.format === "openai-chat")).toBe(true)
      expect(read.system).toBe("You are terse.")
      const shape = (m: Message) => ({ role: m.role, content: m.content.map((b) => b.type) })
      expect(read.messages.map(shape)).toEqual(history.map(shape))
    }
  })

  it("reads a bare provider history and promptline's own messages", () => {
    const chat = parseConversation(
      JSON.stringify([
        { role: "user", content: "hi" },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "c", type: "function", function: { name: "x", arguments: "{}" } }],
        },
        { role: "tool", tool_call_id: "c", content: "done" },
      ]),
      "h.json",
    )
    expect(chat.format).toBe("openai-chat")
    expect(chat.messages.flatMap((m) => m.content.map((b) => b.type))).toEqual(["text", "tool_use", "tool_result"])
    const own = parseConversation(JSON.stringify(history), "h.json")
    expect(own).toMatchObject({ format: "internal", messages: history })
  })

  it("honours --from and names the file, the format and the path when the body is wrong", () => {
    expect(() => parseConversation(JSON.stringify({ messages: [{ role: "user" }] }), "bad.json")).toThrow(FileError)
    expect(() => parseConversation(JSON.stringify({ messages: [{ role: "user" }] }), "bad.json")).toThrow(
      /^bad\.json: read as anthropic \(a body with "messages".*\): .*messages\[0\]/,
    )
    expect(() => parseConversation(JSON.stringify({ prompt: 1 }), "x.json")).toThrow(/found an object/)
    const forced = parseConversation(JSON.stringify([{ role: "user", content: "hi" }]), "h.json", "openai-chat")
    expect(forced).toMatchObject({ format: "openai-chat", evidence: "named with --from" })
  })

  it("reads from a real file", async () => {
    const dir = await mkdtemp(join(tmpdir(), "pl-conv-"))
    const file = join(dir, "c.json")
    await writeFile(file, JSON.stringify({ contents: [{ role: "user", parts: [{ text: "hello" }] }] }))
    const read = await readConversation(file)
    expect(read).toMatchObject({ format: "gemini", messages: [{ id: "m1", role: "user" }] })
    await expect(readConversation(join(dir, "missing.json"))).rejects.toThrow(
      /missing\.json: cannot read the history: it does not exist$/,
    )
  })
})
