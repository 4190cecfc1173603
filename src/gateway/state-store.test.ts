import { describe, expect, it } from "vitest"
import type { GatewayRecord } from "./record.js"
import { addRecordUsage, MemoryStateStore, usageDay } from "./state-store.js"

describe("MemoryStateStore", () => {
  it("saves a conversation only over the version expected, and leaves out a state the caller holds", async () => {
    const store = new MemoryStateStore()
    expect(await store.conversation("k")).toBeUndefined()
    expect(await store.saveConversation("k", "one", 1)).toBeUndefined()
    expect(await store.saveConversation("k", "one", 0)).toBe(1)
    expect(await store.saveConversation("k", "late", 0)).toBeUndefined()
    expect(await store.conversation("k")).toEqual({ version: 1, state: "one" })
    expect(await store.conversation("k", 1)).toEqual({ version: 1 })
    expect(await store.saveConversation("k", "two", 1)).toBe(2)
    expect(await store.conversation("k", 1)).toEqual({ version: 2, state: "two" })
  })

  it("is bounded: the least recently used conversation goes first", async () => {
    const store = new MemoryStateStore(2)
    await store.saveConversation("a", "a", 0)
    await store.saveConversation("b", "b", 0)
    await store.conversation("a")
    await store.saveConversation("c", "c", 0)
    expect(await store.conversation("b")).toBeUndefined()
    expect(await store.conversation("a")).toEqual({ version: 1, state: "a" })
  })

  it("counts failures in a window that starts with the first, and keeps a circuit open until its time", async () => {
    const store = new MemoryStateStore()
    expect(await store.noteFailure("up", 1000, 0)).toBe(1)
    expect(await store.noteFailure("up", 1000, 999)).toBe(2)
    expect(await store.circuit("up", 999)).toEqual({ failures: 2 })
    // The window ended: counting starts again.
    expect(await store.circuit("up", 1000)).toEqual({ failures: 0 })
    expect(await store.noteFailure("up", 1000, 1000)).toBe(1)
    await store.openCircuit("up", 5000, 1000)
    expect(await store.circuit("up", 4999)).toEqual({ failures: 0, openUntil: 5000 })
    expect(await store.circuit("up", 1500)).toEqual({ failures: 1, openUntil: 5000 })
    expect(await store.circuit("up", 5000)).toEqual({ failures: 0 })
    await store.openCircuit("up", 9000, 5000)
    await store.closeCircuit("up")
    expect(await store.circuit("up", 5000)).toEqual({ failures: 0 })
    expect(await store.circuit("other", 0)).toEqual({ failures: 0 })
  })

  it("adds a finished request's usage to its day, upstream and model", async () => {
    const store = new MemoryStateStore()
    const record = (startedAt: number, model: string, usage?: GatewayRecord["usage"]) =>
      ({
        startedAt,
        upstream: { name: "claude", provider: "anthropic", format: "anthropic", model },
        ...(usage ? { usage } : {}),
      }) as GatewayRecord
    const day = Date.UTC(2026, 11, 3, 23, 59)
    await addRecordUsage(store, record(day, "m2", { input: 1, output: 2, cacheRead: 3, cacheWrite: 4 }))
    await addRecordUsage(store, record(day, "m1", { input: 10, output: 20, cacheRead: 30, cacheWrite: 40 }))
    await addRecordUsage(store, record(day, "m1", { input: 1, output: 1, cacheRead: 1, cacheWrite: 1 }))
    await addRecordUsage(store, record(day, "m1"))
    await addRecordUsage(store, record(day + 60_000, "m1", { input: 5, output: 5, cacheRead: 5, cacheWrite: 5 }))
    expect(usageDay(day)).toBe("2026-12-03")
    expect(await store.usage("2026-12-03")).toEqual([
      { upstream: "claude", model: "m1", requests: 2, input: 11, output: 21, cacheRead: 31, cacheWrite: 41 },
      { upstream: "claude", model: "m2", requests: 1, input: 1, output: 2, cacheRead: 3, cacheWrite: 4 },
    ])
    expect(await store.usage("2026-12-04")).toEqual([
      { upstream: "claude", model: "m1", requests: 1, input: 5, output: 5, cacheRead: 5, cacheWrite: 5 },
    ])
  })
})
