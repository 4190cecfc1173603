import { describe, expect, it } from "vitest"
import type { Block, Message } from "./message.js"
import { compactionWindow, foreignCompactions } from "./provider-compaction.js"

const msg = (id: string, role: Message["role"], ...content: Block[]): Message => ({ id, role, content, ts: 0 })
const text = (t: string): Block => ({ type: "text", text: t })
const anthropic: Block = { type: "compaction", format: "anthropic", provider: "anthropic", summary: "s", payload: "{}" }
const openai: Block = { type: "compaction", format: "openai-responses", provider: "openai", payload: "enc" }
const history = [
  msg("u1", "user", text("the task")),
  msg("a1", "assistant", { type: "tool_use", id: "c1", name: "read_file", input: {} }),
  msg("u2", "user", { type: "tool_result", toolUseId: "c1", content: "big" }),
  msg("a2", "assistant", anthropic, { type: "tool_use", id: "c2", name: "read_file", input: {} }),
  msg("u3", "user", { type: "tool_result", toolUseId: "c2", content: "more" }, text("note")),
  msg("u4", "user", text("and then this")),
]

describe("compactionWindow", () => {
  it("keeps the user's requests before the latest item of the target, then everything from it", () => {
    const window = compactionWindow(history, { format: "anthropic", provider: "anthropic" })
    expect(window.map((m) => m.id)).toEqual(["u1", "a2", "u3", "u4"])
  })

  it("gives the history as it is to a target that made no item in it", () => {
    expect(compactionWindow(history, { format: "openai-responses", provider: "openai" })).toBe(history)
    // The same format from another provider cannot read it either.
    expect(compactionWindow(history, { format: "anthropic", provider: "bedrock" })).toBe(history)
  })

  it("lists the items a target cannot read", () => {
    const mixed = [...history, msg("a3", "assistant", openai, text("ok"))]
    expect(foreignCompactions(mixed, { format: "openai-responses", provider: "openai" })).toEqual([anthropic])
    expect(foreignCompactions(mixed, { format: "gemini", provider: "google" })).toEqual([anthropic, openai])
  })
})
