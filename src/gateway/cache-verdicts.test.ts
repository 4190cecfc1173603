/**
 * Issue 27 §8, real traffic through a real gateway: the `x-promptline-cache` header of each answer and the trace
 * line of each request agree with what the provider caches. A Claude-Code-shaped session whose trailing system
 * message is a marked one-block list while it is last and a plain string after (Anthropic reads both the same) is
 * a hit on every turn; a Qwen-Code-shaped memory extraction (its own system prompt and tools, the same first user
 * message) keeps a conversation of its own, and the main conversation around it stays a hit.
 */
import { mkdtemp, readdir, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import Anthropic from "@anthropic-ai/sdk"
import OpenAI from "openai"
import { afterEach, describe, expect, it } from "vitest"
import { cacheLayout } from "../cache/cache-layout.js"
import { claudeCodeSession, qwenCodeRequest } from "../cache/test-helpers/agent-traffic.js"
import { readTraceFile } from "../cache/trace-read.js"
import { TraceStore } from "../cache/trace-store.js"
import { TokenCounter } from "../history/tokens.js"
import { resolveModel } from "../models/resolve.js"
import type { WireFormat } from "../models/types.js"
import type { ReplayScriptInput } from "../replay/script.js"
import { type ReplayServer, startReplayServer } from "../replay/server.js"
import { scriptOf } from "../replay/test-helpers/fixtures.js"
import { type Gateway, startGateway } from "./server.js"
import { gatewayTracing } from "./traces.js"

let replay: ReplayServer | undefined
let gateway: Gateway | undefined
let dir: string | undefined
afterEach(async () => {
  await gateway?.close(0)
  await replay?.close()
  if (dir) await rm(dir, { recursive: true, force: true })
  gateway = undefined
  replay = undefined
  dir = undefined
})

const START = Date.UTC(2026, 11, 1, 10, 0, 0)

/**
 * The usage a provider that cached every earlier prompt whole reports: the previous request's tokens read, the
 * rest written (the figures the provider gave in the session).
 */
function providerUsage(format: WireFormat, bodies: Record<string, unknown>[], counter: TokenCounter) {
  const totals = bodies.map((b) => cacheLayout(format, b, resolveModel(String(b.model)).model, counter).total)
  return totals.map((total, k) => {
    const read = k === 0 ? 0 : Math.min(totals[k - 1]!, total)
    return { input: 3, output: 20, cacheRead: read, cacheWrite: Math.max(0, total - read - 3) }
  })
}

/** A gateway in front of a replay server that answers `turns`, tracing into a fresh folder; clock on `now`. */
async function tracedGateway(turns: ReplayScriptInput["turns"], counter: TokenCounter, now: () => number) {
  replay = await startReplayServer({ script: scriptOf(...turns) })
  dir = await mkdtemp(join(tmpdir(), "promptline-cache-verdicts-"))
  const store = new TraceStore(dir, { counter })
  const written: Promise<void>[] = []
  const tracing = gatewayTracing(store, (error) => {
    throw error
  })
  gateway = await startGateway({
    config: {
      port: 0,
      upstreams: {
        a: { provider: "anthropic", format: "anthropic", baseUrl: replay.url, keyEnv: "K" },
        o: { provider: "openai", format: "openai-chat", baseUrl: `${replay.url}/v1`, keyEnv: "K" },
      },
      routes: [
        { match: "claude-*", upstream: "a" },
        { match: "gpt-*", upstream: "o" },
      ],
    },
    env: { K: "sk-fake-upstream-0000" },
    clock: now,
    answerHeaders: tracing.answerHeaders,
    onRequest: (record) => written.push(tracing.onRequest(record)),
  })
  return { gateway, dir, settled: () => Promise.all(written) }
}

/** The trace files of a folder, each as its lines. */
async function traces(folder: string) {
  const names = (await readdir(join(folder, "conversations"))).filter((f) => f.endsWith(".jsonl")).sort()
  return Promise.all(names.map((n) => readTraceFile(join(folder, "conversations", n))))
}

describe("cache verdicts of real traffic through the gateway", () => {
  it("a 20-turn Claude Code session whose trailing system message changes form is a hit on every turn", async () => {
    const counter = await TokenCounter.create()
    const bodies = claudeCodeSession(20)
    // The form change the issue saw: the reminder is a marked one-block list while last, a string afterwards.
    expect(bodies[1]!.messages).toContainEqual(expect.objectContaining({ role: "system", content: expect.any(Array) }))
    expect(bodies[2]!.messages).toContainEqual(expect.objectContaining({ role: "system", content: expect.any(String) }))
    const usage = providerUsage("anthropic", bodies, counter)
    let now = START
    const { gateway, dir, settled } = await tracedGateway(
      usage.map((u) => ({ text: "ok", usage: u })),
      counter,
      () => now,
    )
    const client = new Anthropic({ apiKey: "client-key", baseURL: gateway.urls.anthropic, maxRetries: 0 })
    const headers: string[] = []
    for (const [k, body] of bodies.entries()) {
      now = START + k * 20_000
      const { data, response } = await client.messages
        .create(body as unknown as Anthropic.MessageCreateParamsStreaming)
        .withResponse()
      for await (const _ of data);
      headers.push(response.headers.get("x-promptline-cache") ?? "")
    }
    await settled()
    expect(headers.map((h) => h.split(";")[0])).toEqual(["first", ...Array(19).fill("hit")])
    const files = await traces(dir)
    expect(files).toHaveLength(1)
    // The trace, with the provider's usage, agrees, and the layout alone already said so.
    expect(files[0]!.map((l) => l.verdict.verdict)).toEqual(["first", ...Array(19).fill("hit")])
    expect(files[0]!.filter((l) => l.verdict.predicted !== undefined)).toEqual([])
  })

  it("a Qwen Code memory extraction keeps its own conversation; the main one stays a hit around it", async () => {
    const counter = await TokenCounter.create()
    // Main turns 1..8, a memory extraction after turns 3 and 6 (same first user message, own prompt and tools).
    const order: [kind: "main" | "memory", turns: number][] = []
    for (let t = 1; t <= 8; t++) {
      order.push(["main", t])
      if (t % 3 === 0) order.push(["memory", t])
    }
    const bodies = order.map(([kind, t]) => qwenCodeRequest(kind, t))
    let now = START
    const { gateway, dir, settled } = await tracedGateway(
      order.map(() => ({ text: "ok", usage: { input: 10, output: 5 } })),
      counter,
      () => now,
    )
    const client = new OpenAI({ apiKey: "client-key", baseURL: gateway.urls.openai, maxRetries: 0 })
    const headers: string[] = []
    for (const [k, body] of bodies.entries()) {
      now = START + k * 15_000
      const { response } = await client.chat.completions
        .create(body as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming)
        .withResponse()
      headers.push(response.headers.get("x-promptline-cache") ?? "")
    }
    await settled()
    const main = headers.filter((_, i) => order[i]![0] === "main").map((h) => h.split(";")[0])
    expect(main).toEqual(["first", ...Array(7).fill("hit")])
    // The first extraction starts its own conversation: nothing to compare it with, so no miss either.
    expect(headers[order.findIndex(([kind]) => kind === "memory")]).toMatch(/^first;/)
    const files = await traces(dir)
    expect(files.map((lines) => lines.length).sort()).toEqual([2, 8])
    for (const lines of files) expect(new Set(lines.map((l) => l.model)).size).toBe(1)
  })
})
