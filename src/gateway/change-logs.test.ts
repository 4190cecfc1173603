import { describe, expect, it } from "vitest"
import { ConversationChangeLogs } from "./change-logs.js"

describe("ConversationChangeLogs", () => {
  it("gives a conversation the same change log each time and forgets the least recently used beyond the limit", () => {
    const logs = new ConversationChangeLogs(2)
    const a = logs.for("a")
    expect(logs.for("a")).toBe(a)
    const b = logs.for("b")
    logs.for("a")
    logs.for("c")
    expect(logs.size).toBe(2)
    expect(logs.for("a")).toBe(a)
    expect(logs.for("b")).not.toBe(b)
  })
})
