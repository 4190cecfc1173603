import { appendFile, mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { TokenCounter } from "../history/tokens.js"
import { defaultPrompt, encoded, scriptHistory } from "./test-helpers/script.js"
import { bodyOf, readTraceFile, summarizeTraces } from "./trace-read.js"
import { type TraceInput, TraceStore } from "./trace-store.js"

let counter: TokenCounter
let dir: string
beforeAll(async () => {
  counter = await TokenCounter.create()
})
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "promptline-traces-"))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

const prompt = defaultPrompt()
const history = scriptHistory(60, 5)

/** Request `k` of a conversation whose first user message is `first`. */
function input(k: number, at: number, first = ""): TraceInput {
  const messages = history.slice(0, 2 * k - 1)
  if (first) messages[0] = { ...messages[0]!, content: [{ type: "text", text: first }] }
  const sent = encoded("anthropic", prompt, messages, at)
  return {
    at,
    durationMs: 900,
    clientApi: "openai-chat",
    upstream: { format: "anthropic", provider: "anthropic", url: "https://api.example.test/v1/messages?key=sk-live-1" },
    model: sent.model!,
    received: { body: { model: "x", messages: [] }, headers: { authorization: "Bearer sk-live-2" } },
    sent: { body: sent.body, headers: { "x-api-key": "sk-live-3", "anthropic-version": "2023-06-01" } },
    usage: { input: 100, output: 20, cacheRead: 0, cacheWrite: 0 },
  }
}

async function bytesUnder(path: string): Promise<number> {
  let n = 0
  for (const e of await readdir(path, { withFileTypes: true }).catch(() => [])) {
    const p = join(path, e.name)
    n += e.isDirectory() ? await bytesUnder(p) : (await stat(p)).size
  }
  return n
}

describe("the trace store", () => {
  it("writes one line per request with the verdict, credentials redacted, and reads the bodies back", async () => {
    const store = new TraceStore(dir, { counter })
    const first = await store.record({ ...input(1, 0), usage: undefined })
    const second = await store.record({ ...input(2, 20_000), usage: undefined })
    expect(second.conversation).toBe(first.conversation)
    expect(second.index).toBe(2)
    expect(second.header).toMatch(/^hit; cached=0\.\d\d$/)
    const file = join(dir, "conversations", `${first.conversation}.jsonl`)
    const text = await readFile(file, "utf8")
    expect(text).not.toMatch(/sk-live/)
    expect(text).toContain("[redacted]")
    const lines = await readTraceFile(file)
    expect(lines.map((l) => l.verdict.verdict)).toEqual(["first", "hit"])
    expect(lines[1]).toMatchObject({ clientApi: "openai-chat", durationMs: 900, upstream: { provider: "anthropic" } })
    expect(await bodyOf(file, lines[1]!)).toEqual(input(2, 20_000).sent.body)
  })

  it("previews the verdict before the answer (for the header) without writing, and records it after", async () => {
    const store = new TraceStore(dir, { counter })
    await store.record({ ...input(1, 0), usage: undefined })
    const next = { ...input(2, 20_000), usage: undefined }
    const preview = await store.preview(next)
    expect(preview.header).toMatch(/^hit; cached=0\.\d\d$/)
    const [file] = await readdir(join(dir, "conversations"))
    expect((await readTraceFile(join(dir, "conversations", file!))).length).toBe(1)
    const record = await store.record(next)
    expect(record).toMatchObject({ conversation: preview.conversation, index: 2, header: preview.header })
  })

  it("stores a long conversation's prefix once, not once per request", async () => {
    const store = new TraceStore(dir, { counter })
    let whole = 0
    for (let k = 1; k <= 25; k++) {
      const entry = input(k, k * 10_000)
      whole += JSON.stringify(entry.sent.body).length
      await store.record(entry)
    }
    const last = JSON.stringify(input(25, 0).sent.body).length
    const stored = await bytesUnder(dir)
    // Every body whole would be about 12x the last one; the store keeps about one copy plus small lines.
    expect(whole).toBeGreaterThan(10 * last)
    expect(stored).toBeLessThan(2 * last)
  })

  it("finds the previous request of a conversation after a restart", async () => {
    await new TraceStore(dir, { counter }).record(input(1, 0))
    const again = await new TraceStore(dir, { counter }).record({ ...input(2, 20_000), usage: undefined })
    expect(again.index).toBe(2)
    expect(again.verdict.verdict).toBe("hit")
  })

  it("keeps the most recent conversations, drops old ones and the blobs only they used", async () => {
    const store = new TraceStore(dir, { counter, retention: { maxConversations: 2, maxAgeDays: 1 } })
    const a = await store.record(input(1, 0, "Task A"))
    const b = await store.record(input(1, 1000, "Task B"))
    const c = await store.record(input(1, 2000, "Task C"))
    const names = (await readdir(join(dir, "conversations"))).sort()
    expect(names).toEqual([`${b.conversation}.jsonl`, `${c.conversation}.jsonl`].sort())
    expect(names).not.toContain(`${a.conversation}.jsonl`)
    // A day later a new conversation's request removes the others by age.
    await store.record(input(1, 2 * 86_400_000, "Task D"))
    expect(await readdir(join(dir, "conversations"))).toHaveLength(1)
    // Every remaining body still reads back: no blob it needs was swept.
    const [summary] = await summarizeTraces(dir)
    const lines = await readTraceFile(summary!.file)
    expect(await bodyOf(summary!.file, lines[0]!)).toEqual(input(1, 0, "Task D").sent.body)
  })

  it("holds the folder under a byte limit, keeping the newest conversation", async () => {
    const store = new TraceStore(dir, { counter, retention: { maxBytes: 60_000 } })
    for (const [i, task] of ["A", "B", "C", "D"].entries()) await store.record(input(3, i * 1000, `Task ${task}`))
    expect(await bytesUnder(dir)).toBeLessThanOrEqual(60_000)
    const left = await summarizeTraces(dir)
    expect(left[0]!.lastAt).toBe(3000)
  })
})

describe("a trace folder with a torn line", () => {
  it("goes on recording: the torn conversation keeps its lines, the others are found again", async () => {
    const first = new TraceStore(dir, { counter })
    const a = await first.record(input(1, 0, "Task A"))
    const b = await first.record(input(1, 1000, "Task B"))
    const fileA = join(dir, "conversations", `${a.conversation}.jsonl`)
    const fileB = join(dir, "conversations", `${b.conversation}.jsonl`)
    await appendFile(fileA, '{"v":1,"n":2,"at":\n')
    await appendFile(fileB, "not json either\n")
    const before = await readFile(fileA, "utf8")
    // A new store (a restarted gateway) reads the folder again and records on.
    const store = new TraceStore(dir, { counter, retention: { maxConversations: 5 } })
    const next = await store.record(input(2, 2000, "Task A"))
    expect(next.conversation).toBe(a.conversation)
    expect(next.verdict.verdict).not.toBe("first")
    const again = await store.record(input(2, 3000, "Task B"))
    expect(again.conversation).toBe(b.conversation)
    const after = await readFile(fileA, "utf8")
    expect(after.startsWith(before)).toBe(true)
    expect(after.split("\n").filter(Boolean)).toHaveLength(3)
  })
})
