/**
 * Issue 13's acceptance script, run through the trace store (the call a gateway makes per request) for every
 * wire format: a client reorders its tools at request 5, puts the time in its system prompt at request 9,
 * edits message 3 at request 14 and waits past the cache lifetime before request 20. Each miss must carry
 * its cause; every other request after the first must be a hit.
 */
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Block, Message } from "../history/message.js"
import { TokenCounter } from "../history/tokens.js"
import { type BuiltInWireFormat, WIRE_FORMATS } from "../models/types.js"
import type { PromptInput } from "../providers/types.js"
import { defaultPrompt, encoded, scriptHistory } from "./test-helpers/script.js"
import { TraceStore } from "./trace-store.js"

let counter: TokenCounter
let dir: string
beforeAll(async () => {
  counter = await TokenCounter.create()
  dir = await mkdtemp(join(tmpdir(), "promptline-cache-"))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

const START = Date.UTC(2026, 11, 1, 10, 0, 0)
const STEP = 20_000
const TIME = "Current time: 2026-12-01 10:00 UTC"

/** The script's request `k` (1-based): the prompt and history the client sends, and when. */
function request(
  k: number,
  base: PromptInput,
  history: Message[],
): { prompt: PromptInput; messages: Message[]; at: number } {
  let tools = [...base.tools]
  if (k >= 5) tools = [tools[1]!, tools[0]!, ...tools.slice(2)]
  let text = base.text
  if (k >= 9) text = text.replace("# Rules\n\n", `# Rules\n\n${TIME}\n`)
  let messages = history.slice(0, 2 * k - 1)
  if (k >= 14) {
    const edited = messages[3]!
    const content = edited.content.map(
      (b, i): Block => (i === 0 && b.type === "text" ? { ...b, text: `${b.text} (edited)` } : b),
    )
    messages = [...messages.slice(0, 3), { ...edited, content }, ...messages.slice(4)]
  }
  const at = START + k * STEP + (k >= 20 ? 2 * 3_600_000 : 0)
  return { prompt: { ...base, text, tools }, messages, at }
}

describe.each(WIRE_FORMATS)("the scripted client over %s", (format: BuiltInWireFormat) => {
  it("reports each miss with its cause and every other request as a hit", async () => {
    const store = new TraceStore(join(dir, format), { counter })
    const base = defaultPrompt()
    const history = scriptHistory(50)
    const verdicts: string[] = []
    const causes = new Map<number, unknown>()
    const conversations = new Set<string>()
    for (let k = 1; k <= 24; k++) {
      const { prompt, messages, at } = request(k, base, history)
      const sent = encoded(format, prompt, messages, at)
      const record = await store.record({
        at,
        clientApi: format,
        upstream: { format },
        model: sent.model!,
        sent: { body: sent.body, headers: { "x-api-key": "sk-secret", "content-type": "application/json" } },
      })
      verdicts.push(record.verdict.verdict)
      if (record.verdict.cause) causes.set(k, record.verdict.cause)
      conversations.add(record.conversation)
    }
    const expected = verdicts.map((_, i) => (i === 0 ? "first" : [5, 9, 14, 20].includes(i + 1) ? "miss" : "hit"))
    expect(verdicts).toEqual(expected)
    expect(conversations.size).toBe(1)
    expect(causes.get(5)).toMatchObject({ kind: "tools-changed", change: "reordered", tool: base.tools[1]!.id })
    expect(causes.get(9)).toMatchObject({ kind: "system-changed", section: "Rules" })
    expect((causes.get(9) as { excerpt: { after: string } }).excerpt.after).toContain("Current time")
    expect(causes.get(14)).toMatchObject({ kind: "message-changed", change: "edit", block: 0 })
    // Anthropic and Gemini bodies list the history's messages one for one.
    if (format === "anthropic" || format === "gemini") expect(causes.get(14)).toMatchObject({ message: 3 })
    expect((causes.get(14) as { excerpt: { after: string } }).excerpt.after).toContain("(edited)")
    expect(causes.get(20)).toMatchObject({ kind: "expired" })
  })
})
