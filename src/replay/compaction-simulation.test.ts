import { afterEach, describe, expect, it } from "vitest"
import {
  ANTHROPIC_DEFAULT_COMPACTION_TRIGGER,
  compactionTrigger,
  SIMULATED_SUMMARY_BODY_CHARS,
} from "./compaction-simulation.js"
import { parseReplayScript } from "./script.js"
import { type ReplayServer, startReplayServer } from "./server.js"

let servers: ReplayServer[] = []
afterEach(async () => {
  for (const s of servers) await s.close()
  servers = []
})

const TASK = "Document every module: one note per file."
/** A text of about `tokens` tokens of distinct numbered lines. */
const filler = (tokens: number) =>
  Array.from({ length: Math.ceil(tokens / 12) }, (_, i) => `row ${i} holds entry ${i * 7} and ${i * 11}`).join("\n")

const turns = [{ text: "one" }, { text: "two" }, { text: "three" }]
async function server(compaction: boolean): Promise<ReplayServer> {
  const s = await startReplayServer({
    script: parseReplayScript({ version: 1, turns }),
    ...(compaction ? { compaction: "simulate" as const } : {}),
  })
  servers.push(s)
  return s
}

const anthropicBody = (tokens: number, trigger?: number) => ({
  model: "claude-sonnet-4-5",
  max_tokens: 1000,
  messages: [
    { role: "user", content: [{ type: "text", text: TASK }] },
    { role: "assistant", content: [{ type: "text", text: "Reading." }] },
    { role: "user", content: [{ type: "text", text: filler(tokens) }] },
  ],
  ...(trigger !== undefined
    ? {
        context_management: {
          edits: [{ type: "compact_20260112", trigger: { type: "input_tokens", value: trigger } }],
        },
      }
    : {}),
})

async function post(url: string, body: unknown): Promise<Record<string, unknown>> {
  const r = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": "k", authorization: "Bearer k" },
    body: JSON.stringify(body),
  })
  expect(r.status).toBe(200)
  return (await r.json()) as Record<string, unknown>
}

describe("compactionTrigger", () => {
  it("reads the Anthropic edit (default 150,000) and the Responses threshold; nothing when not asked", () => {
    expect(compactionTrigger("anthropic", anthropicBody(10, 60_000))).toBe(60_000)
    expect(compactionTrigger("anthropic", { context_management: { edits: [{ type: "compact_20260112" }] } })).toBe(
      ANTHROPIC_DEFAULT_COMPACTION_TRIGGER,
    )
    expect(
      compactionTrigger("anthropic", { context_management: { edits: [{ type: "clear_tool_uses_20250919" }] } }),
    ).toBeUndefined()
    expect(compactionTrigger("anthropic", {})).toBeUndefined()
    expect(
      compactionTrigger("openai-responses", { context_management: [{ type: "compaction", compact_threshold: 900 }] }),
    ).toBe(900)
    expect(compactionTrigger("openai-responses", { context_management: [{ type: "compaction" }] })).toBeUndefined()
    expect(
      compactionTrigger("openai-chat", { context_management: [{ type: "compaction", compact_threshold: 9 }] }),
    ).toBe(undefined)
  })
})

describe("replay server with compaction: simulate", () => {
  it("Anthropic: opens the answer with a compaction block once the input reaches the trigger, not before", async () => {
    const s = await server(true)
    const url = `${s.urls.anthropic}/v1/messages`
    const under = await post(url, anthropicBody(30_000, 50_000))
    expect((under.content as { type: string }[]).map((b) => b.type)).toEqual(["text"])
    const over = await post(url, anthropicBody(60_000, 50_000))
    const [block, text] = over.content as Record<string, unknown>[]
    expect(block).toMatchObject({ type: "compaction", encrypted_content: "replay-compaction-0" })
    const summary = String(block!.content)
    expect(summary.startsWith(`The original task, verbatim:\n${TASK}\n\nThe provider condensed 3 messages (`)).toBe(
      true,
    )
    expect(summary.length).toBeLessThan(SIMULATED_SUMMARY_BODY_CHARS + 200)
    expect(text).toMatchObject({ type: "text", text: "two" })
    // Without the compaction edit a large request is answered as scripted.
    expect(((await post(url, anthropicBody(60_000))).content as { type: string }[])[0]!.type).toBe("text")
    expect(s.requests.map((r) => r.compacted ?? false)).toEqual([false, true, false])
  })

  it("Responses: answers a compaction item over compact_threshold; same requests, same bytes", async () => {
    const body = {
      model: "gpt-5",
      input: [
        { role: "user", content: TASK },
        { role: "user", content: filler(3_000) },
      ],
      context_management: [{ type: "compaction", compact_threshold: 2_000 }],
    }
    const answers: string[] = []
    for (let i = 0; i < 2; i++) {
      const s = await server(true)
      const out = await post(`${s.urls.openai}/responses`, body)
      const item = (out.output as Record<string, unknown>[])[0]!
      expect(item.type).toBe("compaction")
      expect(String(item.encrypted_content)).toContain(TASK)
      answers.push(JSON.stringify(out.output))
    }
    expect(answers[1]).toBe(answers[0])
  })

  it("without the option a request over its trigger is answered as scripted", async () => {
    const s = await server(false)
    const over = await post(`${s.urls.anthropic}/v1/messages`, anthropicBody(60_000, 50_000))
    expect((over.content as { type: string }[]).map((b) => b.type)).toEqual(["text"])
    expect(s.requests[0]!.compacted).toBeUndefined()
  })
})
