/**
 * Which conversation a traced request joins: side calls (their own system prompt or tools, or another model) stay
 * apart even with the same first user message or session id, while a conversation whose system prompt changes at
 * its tail or top, or that gains a tool, stays one conversation and its misses are named there. The caller's
 * conversation id wins over all of it, and a trace folder opened again groups as before.
 */
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { TokenCounter } from "../history/tokens.js"
import type { BuiltInWireFormat } from "../models/types.js"
import type { PromptInput } from "../providers/types.js"
import { claudeCodeSession } from "./test-helpers/agent-traffic.js"
import { defaultPrompt, encoded, MODEL_OF, scriptHistory } from "./test-helpers/script.js"
import { TraceStore } from "./trace-store.js"

type Json = Record<string, unknown>

let counter: TokenCounter
let root: string
let n = 0
beforeAll(async () => {
  counter = await TokenCounter.create()
  root = await mkdtemp(join(tmpdir(), "promptline-conversations-"))
})
afterAll(async () => {
  await rm(root, { recursive: true, force: true })
})

const START = 1_800_000_000_000

/** A trace store in a fresh folder, and a `send` that records one body and returns its conversation and verdict. */
function traced(dir = join(root, `t${n++}`)) {
  const store = new TraceStore(dir, { counter })
  let k = 0
  const send = async (format: BuiltInWireFormat, body: unknown, conversation?: string) => {
    const at = START + 10_000 * k++
    const model = (body as Json).model as string | undefined
    const record = await store.record({
      at,
      clientApi: format,
      upstream: { format },
      model: model ?? MODEL_OF[format],
      sent: { body },
      ...(conversation ? { conversation } : {}),
    })
    return { key: record.conversation, verdict: record.verdict }
  }
  return { dir, send }
}

describe("conversations of traced requests", () => {
  it("keeps Claude Code's side calls with its session id apart: a check, a title on another model, a sub-agent", async () => {
    const { send } = traced()
    const main = claudeCodeSession(6)
    const first = (main[0]!.messages as Json[])[0]!
    const title = {
      ...main[0],
      model: "claude-haiku-4-5",
      system: [{ type: "text", text: "Write a five-word title for the conversation's topic." }],
      tools: [],
      messages: [first, { role: "user", content: "Title?" }],
    }
    // The same model and first user message, its own system prompt and no tools (a compaction check, a memory).
    const check = {
      ...main[0],
      system: [
        { type: "text", text: `Answer yes or no: is the task above done? ${"Look at the last turns. ".repeat(40)}` },
      ],
      tools: [],
      messages: [first, { role: "user", content: "Done?" }],
    }
    const subagent = {
      ...main[0],
      system: [{ type: "text", text: `You are a search agent. ${"Find files, report paths. ".repeat(60)}` }],
      tools: (main[0]!.tools as Json[]).slice(0, 2),
      messages: [{ role: "user", content: "Find where the budget is computed." }],
    }
    const keys = new Map<string, string[]>()
    const note = (name: string, r: { key: string; verdict: { verdict: string } }) => {
      keys.set(name, [...(keys.get(name) ?? []), r.key])
      return r.verdict.verdict
    }
    const verdicts: string[] = []
    for (const [k, body] of main.entries()) {
      verdicts.push(note("main", await send("anthropic", body)))
      if (k === 1) note("title", await send("anthropic", title))
      if (k === 2) note("check", await send("anthropic", check))
      if (k === 3) note("subagent", await send("anthropic", subagent))
    }
    expect(verdicts).toEqual(["first", "hit", "hit", "hit", "hit", "hit"])
    expect(new Set(keys.get("main")).size).toBe(1)
    const all = new Set([...keys.values()].flat())
    expect(all.size).toBe(4)
  })

  it("keeps one conversation when the system prompt's tail or top line changes each turn, and names the miss", async () => {
    const base = defaultPrompt()
    const history = scriptHistory(13)
    for (const format of ["gemini", "openai-chat"] as const) {
      const { send } = traced()
      const results = []
      for (let k = 1; k <= 6; k++) {
        const tail = `${base.text}\n\nCurrent time: 2026-12-01 10:0${k} UTC`
        const text = k % 2 === 0 ? tail : `Request nonce ${k}0${k}.\n\n${tail}`
        results.push(await send(format, encoded(format, { ...base, text }, history.slice(0, 2 * k - 1), 0).body))
      }
      expect(new Set(results.map((r) => r.key)).size).toBe(1)
      expect(results.slice(1).map((r) => r.verdict.cause?.kind)).toEqual(Array(5).fill("system-changed"))
    }
  })

  it("keeps one conversation when a tool is added, and names the tool", async () => {
    const { send } = traced()
    const base = defaultPrompt()
    const history = scriptHistory(9)
    const more: PromptInput = {
      ...base,
      tools: [...base.tools, { ...base.tools[0]!, id: "mcp_lookup", name: "mcp_lookup" }],
    }
    const a = await send("openai-chat", encoded("openai-chat", base, history.slice(0, 5), 0).body)
    const b = await send("openai-chat", encoded("openai-chat", more, history.slice(0, 7), 0).body)
    expect(b.key).toBe(a.key)
    expect(b.verdict.cause).toMatchObject({ kind: "tools-changed", change: "added", tool: "mcp_lookup" })
  })

  it("lets the caller's conversation id win: a side call named into the conversation is compared with it", async () => {
    const { send } = traced()
    const main = claudeCodeSession(3)
    const side = { ...main[1], system: [{ type: "text", text: "Summarize." }], tools: [] }
    const keys = [
      (await send("anthropic", main[0], "chat-7")).key,
      (await send("anthropic", side, "chat-7")).key,
      (await send("anthropic", main[1], "chat-7")).key,
    ]
    expect(new Set(keys).size).toBe(1)
  })

  it("groups as before when the trace folder is opened again", async () => {
    const history = scriptHistory(11)
    const base = defaultPrompt()
    const side: PromptInput = { text: "You extract memories. ".repeat(80), tools: [base.tools[0]!] }
    const body = (prompt: PromptInput, k: number) => encoded("openai-chat", prompt, history.slice(0, 2 * k - 1), 0).body
    const first = traced()
    const main1 = await first.send("openai-chat", body(base, 1))
    const side1 = await first.send("openai-chat", body(side, 2))
    const again = traced(first.dir)
    const main2 = await again.send("openai-chat", body(base, 3))
    const side2 = await again.send("openai-chat", body(side, 4))
    expect(side1.key).not.toBe(main1.key)
    expect(main2).toMatchObject({ key: main1.key, verdict: { verdict: "hit" } })
    expect(side2).toMatchObject({ key: side1.key, verdict: { verdict: "hit" } })
  })
})
