/**
 * Issue 13's acceptance script over the gateway: a client that reorders its tools at request 5, puts the time in
 * its system prompt at request 9, edits message 3 at request 14 and comes back after the cache lifetime at request
 * 20 (a simulated clock). The `x-promptline-cache` header of each answer carries the verdict predicted from the
 * request as sent; every request lands in the conversation's trace.
 */
import { mkdtemp, readdir, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { defaultPrompt, encoded, scriptHistory } from "../cache/test-helpers/script.js"
import { readTraceFile } from "../cache/trace-read.js"
import { TraceStore } from "../cache/trace-store.js"
import type { Block, Message } from "../history/message.js"
import { TokenCounter } from "../history/tokens.js"
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
})

const START = Date.UTC(2026, 11, 1, 10, 0, 0)
const TIME = "Current time: 2026-12-01 10:00 UTC"

describe("the gateway's traces", () => {
  it("names each miss of the scripted client in the answer's header and traces every request", async () => {
    const turns = Array.from({ length: 24 }, () => ({ text: "ok", usage: { input: 10, output: 1 } }))
    replay = await startReplayServer({ script: scriptOf(...turns) })
    dir = await mkdtemp(join(tmpdir(), "promptline-gateway-traces-"))
    const store = new TraceStore(dir, { counter: await TokenCounter.create() })
    const written: Promise<void>[] = []
    const tracing = gatewayTracing(store, (error) => {
      throw error
    })
    let now = START
    gateway = await startGateway({
      config: {
        port: 0,
        upstreams: { a: { provider: "anthropic", format: "anthropic", baseUrl: replay.url, keyEnv: "K" } },
        routes: [{ match: "claude-*", upstream: "a" }],
      },
      env: { K: "sk-fake-trace-key-0000" },
      clock: () => now,
      answerHeaders: tracing.answerHeaders,
      onRequest: (record) => written.push(tracing.onRequest(record)),
    })
    const base = defaultPrompt()
    const history = scriptHistory(50)
    const headers: string[] = []
    for (let k = 1; k <= 24; k++) {
      let tools = [...base.tools]
      if (k >= 5) tools = [tools[1]!, tools[0]!, ...tools.slice(2)]
      const text = k >= 9 ? base.text.replace("# Rules\n\n", `# Rules\n\n${TIME}\n`) : base.text
      let messages: Message[] = history.slice(0, 2 * k - 1)
      if (k >= 14) {
        const edited = messages[3]!
        const content = edited.content.map(
          (b, i): Block => (i === 0 && b.type === "text" ? { ...b, text: `${b.text} (edited)` } : b),
        )
        messages = [...messages.slice(0, 3), { ...edited, content }, ...messages.slice(4)]
      }
      now = START + k * 20_000 + (k >= 20 ? 2 * 3_600_000 : 0)
      const { body } = encoded("anthropic", { ...base, text, tools }, messages, now)
      const answer = await fetch(`${gateway.urls.anthropic}/v1/messages`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": "client-key", "anthropic-version": "2023-06-01" },
        body: JSON.stringify(body),
      })
      await answer.text()
      expect(answer.status).toBe(200)
      headers.push(answer.headers.get("x-promptline-cache") ?? "")
    }
    await Promise.all(written)
    const verdicts = headers.map((h) => h.split(";")[0])
    expect(verdicts).toEqual(
      verdicts.map((_, i) => (i === 0 ? "first" : [5, 9, 14, 20].includes(i + 1) ? "miss" : "hit")),
    )
    expect([4, 8, 13, 19].map((i) => /cause=([a-z-]+)/.exec(headers[i] ?? "")?.[1])).toEqual([
      "tools-changed",
      "system-changed",
      "message-changed",
      "expired",
    ])
    const files = (await readdir(join(dir, "conversations"))).filter((f) => f.endsWith(".jsonl"))
    expect(files).toHaveLength(1)
    const lines = await readTraceFile(join(dir, "conversations", files[0]!))
    expect(lines).toHaveLength(24)
    expect(JSON.stringify(lines)).not.toContain("sk-fake-trace-key-0000")
    expect(JSON.stringify(lines)).not.toContain("client-key")
  })
})
