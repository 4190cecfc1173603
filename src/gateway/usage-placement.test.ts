/**
 * Where each client format's translated stream carries the usage, read by the client's own SDK, when the upstream
 * reports it only at the end (OpenAI Chat, Responses): Anthropic's `message_start` holds promptline's count of the
 * input (older accumulators and clients read input there) and `message_delta` the upstream's exact figures (which
 * the SDK's accumulator takes over); OpenAI Chat's usage chunk, the Responses `response.completed` and Gemini's
 * last chunk hold the upstream's figures.
 */
import Anthropic from "@anthropic-ai/sdk"
import { GoogleGenAI } from "@google/genai"
import OpenAI from "openai"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { WireFormat } from "../models/types.js"
import { type ReplayServer, startReplayServer } from "../replay/server.js"
import { scriptOf } from "../replay/test-helpers/fixtures.js"
import { type Gateway, startGateway } from "./server.js"

/** The replay's figures: 300 input tokens not from the cache, 100 read from it (a prompt of 400), 8 output. */
const USAGE = { input: 300, output: 8, cacheRead: 100 }
const UPSTREAMS: Partial<Record<WireFormat, { provider: string; model: string; path: string }>> = {
  "openai-chat": { provider: "openai", model: "gpt-4.1", path: "/v1" },
  "openai-responses": { provider: "openai", model: "gpt-5", path: "/v1" },
  gemini: { provider: "gemini", model: "gemini-2.5-flash", path: "" },
}
const FORMATS = Object.keys(UPSTREAMS) as WireFormat[]
const PROMPT = "Please read the file a.ts and tell me what it exports, in one short sentence."

let replay: ReplayServer
let gateway: Gateway
beforeAll(async () => {
  replay = await startReplayServer({
    script: scriptOf(
      ...Array.from({ length: 4 * FORMATS.length }, () => ({ text: "It exports nothing.", usage: USAGE })),
    ),
  })
  gateway = await startGateway({
    config: {
      port: 0,
      upstreams: Object.fromEntries(
        FORMATS.map((f) => [
          f,
          { provider: UPSTREAMS[f]!.provider, format: f, baseUrl: `${replay.url}${UPSTREAMS[f]!.path}`, keyEnv: "K" },
        ]),
      ),
      routes: FORMATS.map((f) => ({ match: `to-${f}`, upstream: f, model: UPSTREAMS[f]!.model, mode: "translate" })),
    },
    env: { K: "sk-fake-usage-key-000" },
  })
})
afterAll(async () => {
  await gateway?.close(0)
  await replay?.close()
})

describe("usage where each client's SDK reads it, from upstreams that report it at the end", () => {
  for (const upstream of FORMATS) {
    const model = `to-${upstream}`
    it(`Anthropic client, ${upstream} upstream: an input count in message_start, the exact figures in the final message`, async () => {
      const sdk = new Anthropic({ apiKey: "client", baseURL: gateway.urls.anthropic, maxRetries: 0 })
      const stream = sdk.messages.stream({ model, max_tokens: 50, messages: [{ role: "user", content: PROMPT }] })
      const starts: Anthropic.MessageStartEvent[] = []
      stream.on("streamEvent", (event) => {
        if (event.type === "message_start") starts.push(structuredClone(event))
      })
      const final = await stream.finalMessage()
      // promptline's count of the prompt as the upstream gets it: the text's tokens and the framing.
      const early = starts[0]!.message.usage
      expect(early.input_tokens).toBeGreaterThan(15)
      expect(early.input_tokens).toBeLessThan(60)
      expect(early.output_tokens).toBe(0)
      // The upstream's figures replace it at the end (input without the cache reads, as Anthropic counts it).
      expect(final.usage).toMatchObject({ input_tokens: 300, cache_read_input_tokens: 100, output_tokens: 8 })
    })

    it(`OpenAI Chat client, ${upstream} upstream: the usage chunk`, async () => {
      const sdk = new OpenAI({ apiKey: "client", baseURL: gateway.urls.openai, maxRetries: 0 })
      const final = await sdk.chat.completions
        .stream({ model, messages: [{ role: "user", content: PROMPT }], stream_options: { include_usage: true } })
        .finalChatCompletion()
      expect(final.usage).toMatchObject({ prompt_tokens: 400, completion_tokens: 8 })
      expect(final.usage?.prompt_tokens_details?.cached_tokens).toBe(100)
    })

    it(`OpenAI Responses client, ${upstream} upstream: response.completed`, async () => {
      const sdk = new OpenAI({ apiKey: "client", baseURL: gateway.urls.openai, maxRetries: 0 })
      const final = await sdk.responses.stream({ model, input: PROMPT }).finalResponse()
      expect(final.usage).toMatchObject({ input_tokens: 400, output_tokens: 8 })
      expect(final.usage?.input_tokens_details.cached_tokens).toBe(100)
    })

    it(`Gemini client, ${upstream} upstream: the last chunk's usageMetadata`, async () => {
      const sdk = new GoogleGenAI({ apiKey: "client", httpOptions: { baseUrl: gateway.urls.gemini } })
      let last: { promptTokenCount?: number; candidatesTokenCount?: number; cachedContentTokenCount?: number } = {}
      for await (const chunk of await sdk.models.generateContentStream({
        model,
        contents: [{ role: "user", parts: [{ text: PROMPT }] }],
      }))
        if (chunk.usageMetadata) last = chunk.usageMetadata
      expect(last).toMatchObject({ promptTokenCount: 400, candidatesTokenCount: 8, cachedContentTokenCount: 100 })
    })
  }
})
