import Anthropic from "@anthropic-ai/sdk"
import { afterEach, describe, expect, it } from "vitest"
import type { ModelInfo } from "../models/types.js"
import { formatModule } from "../providers/formats.js"
import { type ReplayServer, startReplayServer } from "../replay/server.js"
import { finalTurn, scriptOf } from "../replay/test-helpers/fixtures.js"
import { conversationKey } from "./conversation-key.js"
import type { GatewayRecord } from "./record.js"
import { type Gateway, startGateway } from "./server.js"

let replay: ReplayServer | undefined
let gateway: Gateway | undefined
let other: Gateway | undefined
afterEach(async () => {
  await gateway?.close(0)
  await other?.close(0)
  await replay?.close()
  gateway = other = replay = undefined
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

describe("translate mode through the library, with no onRequest hook", () => {
  /** A small model, so that fitting cuts the conversation. */
  const small: ModelInfo = {
    id: "small-coder",
    provider: "openai",
    family: "gpt",
    contextWindow: 6000,
    maxOutput: 1000,
    tokenizer: "estimate",
    capabilities: { nativeTools: true, images: false, thinking: false },
    source: "test",
  }
  /** An Anthropic conversation of `rounds` tool rounds, each result long. */
  const conversation = (rounds: number) => {
    const messages: Record<string, unknown>[] = [{ role: "user", content: "read every file and fix the build" }]
    for (let i = 0; i < rounds; i++) {
      messages.push({
        role: "assistant",
        content: [{ type: "tool_use", id: `call_${i}`, name: "read_file", input: { path: `src/f${i}.ts` } }],
      })
      messages.push({
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: `call_${i}`, content: `file ${i}\n${"const x = 1;\n".repeat(400)}` },
        ],
      })
    }
    return {
      model: "claude-sonnet-4-5",
      max_tokens: 100,
      system: "You are a careful coding agent.",
      tools: [{ name: "read_file", description: "Read a file", input_schema: { type: "object", properties: {} } }],
      messages,
    }
  }

  it("keys the conversation itself: the same cache key and fitted history as with a hook", async () => {
    replay = await startReplayServer({ script: scriptOf(finalTurn, finalTurn, finalTurn, finalTurn) })
    const options = (onRequest?: (r: GatewayRecord) => void) => ({
      config: {
        port: 0,
        upstreams: {
          chat: { provider: "openai", format: "openai-chat" as const, baseUrl: `${replay!.url}/v1`, keyEnv: "K" },
        },
        routes: [{ match: "claude-*", upstream: "chat", model: "small-coder", fit: true, cache: "optimize" as const }],
      },
      env: { K: "sk-fake-translate-key-00" },
      models: [small],
      ...(onRequest ? { onRequest } : {}),
    })
    const records: GatewayRecord[] = []
    gateway = await startGateway(options((r) => records.push(r)))
    other = await startGateway(options())
    const turns = [conversation(6), conversation(7)]
    for (const to of [gateway, other])
      for (const body of turns) {
        const answer = await fetch(`${to.url}/v1/messages`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-api-key": "client" },
          body: JSON.stringify(body),
        })
        expect(answer.status).toBe(200)
        await answer.text()
      }
    const sent = replay.requests.map((r) => r.body as { prompt_cache_key?: string; messages: unknown[] })
    const key = conversationKey({}, formatModule("anthropic").decodeRequest(turns[0]!, {}))
    expect(sent.map((b) => b.prompt_cache_key)).toEqual([key, key, key, key])
    expect(records.map((r) => r.conversationKey)).toEqual([key, key])
    // Fitted (the small model's budget cut the long results), and fitted alike without the hook.
    expect(JSON.stringify(sent[0]).length).toBeLessThan(JSON.stringify(turns[0]).length / 2)
    expect(sent.slice(2)).toEqual(sent.slice(0, 2))
  })
})
