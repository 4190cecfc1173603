import { describe, expect, it } from "vitest"
import { ConversationChangeLogs } from "./change-logs.js"
import { MemoryStateStore } from "./state-store.js"

const truncation = (ts: number) => ({ kind: "truncation" as const, ts, from: "m1", to: "m2" })

describe("ConversationChangeLogs", () => {
  it("gives a conversation the same change log each time and forgets the least recently used beyond the limit", async () => {
    const logs = new ConversationChangeLogs(new MemoryStateStore(), undefined, 2)
    const a = await logs.open("a")
    expect((await logs.open("a")).log).toBe(a.log)
    const b = await logs.open("b")
    await logs.open("a")
    await logs.open("c")
    expect(logs.size).toBe(2)
    expect((await logs.open("a")).log).toBe(a.log)
    expect((await logs.open("b")).log).not.toBe(b.log)
  })

  it("reads the log another instance saved, and keeps its own while the store holds its version", async () => {
    const store = new MemoryStateStore()
    const one = new ConversationChangeLogs(store)
    const two = new ConversationChangeLogs(store)
    const first = await one.open("k")
    first.log.add([truncation(1)])
    await one.save("k", first)
    expect(first.version).toBe(1)
    const seen = await two.open("k")
    expect(seen.log.edits).toEqual([truncation(1)])
    seen.log.add([truncation(2)])
    await two.save("k", seen)
    // The first instance's log is behind: it reads the second's, and keeps it while nothing newer is saved.
    const again = await one.open("k")
    expect(again.log).not.toBe(first.log)
    expect(again.log.edits).toEqual([truncation(1), truncation(2)])
    expect((await one.open("k")).log).toBe(again.log)
  })

  it("loses a race without overwriting the winner: its log is dropped and the winner's read next", async () => {
    const store = new MemoryStateStore()
    const one = new ConversationChangeLogs(store)
    const two = new ConversationChangeLogs(store)
    const a = await one.open("k")
    const b = await two.open("k")
    a.log.add([truncation(1)])
    b.log.add([truncation(5)])
    await one.save("k", a)
    await two.save("k", b)
    expect(b.version).toBe(0)
    expect((await store.conversation("k"))?.state).toBe(JSON.stringify(a.log.toJSON()))
    expect((await two.open("k")).log.edits).toEqual([truncation(1)])
  })

  it("reports a stored log it cannot read and fits afresh; the next save replaces it", async () => {
    const store = new MemoryStateStore()
    await store.saveConversation("k", "{not json", 0)
    const errors: string[] = []
    const logs = new ConversationChangeLogs(store, (e) => errors.push(e.message))
    const entry = await logs.open("k")
    expect(entry.log.edits).toEqual([])
    expect(errors).toEqual([expect.stringContaining("stored change log of conversation k cannot be read")])
    entry.log.add([truncation(1)])
    await logs.save("k", entry)
    expect(entry.version).toBe(2)
  })
})
