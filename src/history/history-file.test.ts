import { describe, expect, it } from "vitest"
import { ValidationError } from "../errors.js"
import { completeMessages, parseHistory } from "./history-file.js"

describe("parseHistory", () => {
  it("assigns ids and times that a written history leaves out, without reusing ids the file has", () => {
    const raw = JSON.stringify([
      { role: "user", content: [{ type: "text", text: "a" }] },
      { id: "m1", role: "assistant", content: [{ type: "text", text: "b" }], ts: 50 },
      { role: "user", content: [{ type: "text", text: "c" }] },
    ])
    const messages = parseHistory(raw, "h.json")
    expect(messages.map((m) => [m.id, m.ts])).toEqual([
      ["m2", 0],
      ["m1", 50],
      ["m3", 50],
    ])
  })

  it("still refuses duplicate ids and bad blocks, naming the path", () => {
    const dup = JSON.stringify([
      { id: "x", role: "user", content: [] },
      { id: "x", role: "user", content: [] },
    ])
    expect(() => parseHistory(dup, "h.json")).toThrow(/\[1\]\.id: duplicate message id x/)
    const bad = JSON.stringify([{ role: "user", content: [{ type: "tool_use", name: "x" }] }])
    expect(() => parseHistory(bad, "h.json")).toThrow(ValidationError)
  })

  it("keeps a provider's compaction block (a resumed session once lost it, and the fallback summary with it)", () => {
    const block = {
      type: "compaction",
      format: "anthropic",
      provider: "anthropic",
      payload: '{"encrypted_content":"e"}',
      summary: "s",
    }
    const raw = JSON.stringify([{ id: "a", role: "assistant", content: [block], ts: 1 }])
    expect(parseHistory(raw, "h.json")[0]!.content).toEqual([block])
    const bad = JSON.stringify([{ role: "assistant", content: [{ type: "compaction", payload: "e" }] }])
    expect(() => parseHistory(bad, "h.json")).toThrow(ValidationError)
  })

  it("keeps complete messages as they are", () => {
    const m = { id: "a", role: "user" as const, content: [], ts: 3 }
    expect(completeMessages([m])).toEqual([m])
  })
})
