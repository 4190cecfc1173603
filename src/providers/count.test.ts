import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ContextManager } from "../history/context-manager.js"
import type { Message } from "../history/message.js"
import { resolveModel } from "../models/resolve.js"
import type { WireFormat } from "../models/types.js"
import { parseReplayScript } from "../replay/script.js"
import { type ReplayServer, startReplayServer } from "../replay/server.js"
import { countingRequest, countTokens } from "./count.js"
import { encodeRequest } from "./encode.js"
import { endpointFor } from "./endpoints.js"

let server: ReplayServer
beforeAll(async () => {
  server = await startReplayServer({ script: parseReplayScript({ version: 1, turns: [{ text: "unused" }] }) })
})
afterAll(async () => {
  await server.close()
})

const messages: Message[] = [{ id: "u", role: "user", ts: 0, content: [{ type: "text", text: "Count me, please." }] }]

const cases: { format: WireFormat; provider: string; model: string; base: () => string; path: RegExp }[] = [
  {
    format: "anthropic",
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    base: () => server.urls.anthropic,
    path: /^\/v1\/messages\/count_tokens$/,
  },
  {
    format: "openai-responses",
    provider: "openai",
    model: "gpt-5",
    base: () => server.urls.openai,
    path: /^\/v1\/responses\/input_tokens$/,
  },
  {
    format: "gemini",
    provider: "gemini",
    model: "gemini-2.5-pro",
    base: () => server.urls.gemini,
    path: /^\/v1beta\/models\/gemini-2\.5-pro:countTokens$/,
  },
]

describe("token counting endpoints", () => {
  for (const c of cases) {
    it(`asks the ${c.format} counting endpoint with the prompt only, and reads its answer`, async () => {
      const model = resolveModel(c.model).model
      const encoded = encodeRequest(c.format, {
        prompt: { text: "You are terse.", tools: [], toolCalling: "native" },
        messages,
        model,
      })
      const endpoint = endpointFor({
        provider: c.provider,
        format: c.format,
        env: {},
        baseUrl: c.base(),
        apiKey: "replay",
      })
      const body = encoded.body as Record<string, unknown>
      const count = await countTokens(endpoint, { format: c.format, model: model.id, body })
      const record = server.requests.at(-1)!
      expect(record.path).toMatch(c.path)
      expect(count).toBe(record.count)
      expect(count).toBe(Math.ceil(JSON.stringify(record.body).length / 4))
      const sent = JSON.stringify(record.body)
      expect(sent).toContain("Count me, please.")
      expect(sent).not.toContain('"stream"')
      // The exact count calibrates the manager's estimate for the model.
      const manager = await ContextManager.create()
      const fit = manager.fit(messages, { model, now: 1, system: "You are terse." })
      expect(manager.observe(fit, count)?.ratio).toBeCloseTo(count / fit.tokens.local, 6)
    })
  }

  it("refuses a wire format without a counting endpoint, with a typed error", () => {
    const endpoint = endpointFor({
      provider: "openai",
      format: "openai-chat",
      env: {},
      baseUrl: "http://x.invalid/v1",
      apiKey: "k",
    })
    expect(() => countingRequest(endpoint, "openai-chat", "gpt-4o", {})).toThrow(/no token-counting endpoint/)
  })
})
