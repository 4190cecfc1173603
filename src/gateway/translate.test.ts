import Anthropic from "@anthropic-ai/sdk"
import { afterEach, describe, expect, it } from "vitest"
import { type ReplayServer, startReplayServer } from "../replay/server.js"
import { finalTurn, scriptOf } from "../replay/test-helpers/fixtures.js"
import type { GatewayRecord } from "./record.js"
import { type Gateway, startGateway } from "./server.js"

let replay: ReplayServer | undefined
let gateway: Gateway | undefined
afterEach(async () => {
  await gateway?.close(0)
  await replay?.close()
})

describe("translate mode: an Anthropic client, an OpenAI Chat upstream", () => {
  it("translates the request and the answer, naming dropped fields", async () => {
    replay = await startReplayServer({ script: scriptOf(finalTurn) })
    const records: GatewayRecord[] = []
    gateway = await startGateway({
      config: {
        port: 0,
        upstreams: { chat: { provider: "openai", format: "openai-chat", baseUrl: `${replay.url}/v1`, keyEnv: "K" } },
        routes: [{ match: "claude-*", upstream: "chat", model: "gpt-4.1", cache: "optimize" }],
      },
      env: { K: "sk-fake-translate-key-00" },
      onRequest: (r) => records.push(r),
    })
    const client = new Anthropic({ apiKey: "client", baseURL: gateway.urls.anthropic, maxRetries: 0 })
    const request = {
      model: "claude-sonnet-4-5",
      max_tokens: 50,
      metadata: { user_id: "u1" },
      system: "You are terse.",
      messages: [{ role: "user" as const, content: "hi" }],
    }
    const { data, response } = await client.messages.create(request).withResponse()
    expect(data.content).toEqual([{ type: "text", text: finalTurn.text }])
    expect(data.model).toBe("claude-sonnet-4-5")
    expect(response.headers.get("x-promptline-dropped")).toContain("metadata")
    const sent = replay.requests[0]!.body as Record<string, unknown>
    expect(sent.model).toBe("gpt-4.1")
    expect(sent.prompt_cache_key).toBe(records[0]!.conversationKey)
    expect(records[0]).toMatchObject({
      mode: "translate",
      usage: { input: 300, output: 8 },
      dropped: expect.arrayContaining(["metadata"]),
    })
  })
})

describe("translate mode: an OpenAI Responses client, an Anthropic upstream", () => {
  it("asks the upstream for compaction with the beta header the edit needs", async () => {
    replay = await startReplayServer({ script: scriptOf(finalTurn) })
    gateway = await startGateway({
      config: {
        port: 0,
        upstreams: { claude: { provider: "anthropic", format: "anthropic", baseUrl: replay.url, keyEnv: "K" } },
        routes: [{ match: "gpt-*", upstream: "claude", model: "claude-sonnet-4-5" }],
      },
      env: { K: "sk-fake-translate-key-00" },
    })
    const response = await fetch(`${gateway.urls.openai}/responses`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer client" },
      body: JSON.stringify({
        model: "gpt-5",
        input: "hi",
        context_management: [{ type: "compaction", compact_threshold: 200_000 }],
      }),
    })
    expect(response.status).toBe(200)
    const sent = replay.requests[0]!
    expect((sent.body as { context_management?: unknown }).context_management).toEqual({
      edits: [{ type: "compact_20260112", trigger: { type: "input_tokens", value: 200_000 } }],
    })
    expect(sent.headers["anthropic-beta"]).toBe("compact-2026-01-12")
  })
})
