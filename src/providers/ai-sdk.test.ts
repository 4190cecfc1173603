import { createAnthropic } from "@ai-sdk/anthropic"
import { type ModelMessage, streamText } from "ai"
import { describe, expect, it } from "vitest"
import { fixtureModel, mixedHistory } from "../../test/fixtures/providers/requests/load.js"
import { startReplayServer, streamLines } from "../../test/fixtures/providers/requests/replay-server.js"
import { aiSdkCall, toAiSdk, toAiSdkTools } from "./ai-sdk.js"
import { encodeAnthropic } from "./anthropic/encode.js"
import type { EncodeInput } from "./encode.js"

const claude = fixtureModel("anthropic")

function input(overrides: Partial<EncodeInput> = {}): EncodeInput {
  const { prompt, messages } = mixedHistory()
  return { prompt, messages, model: claude, ...overrides }
}

describe("toAiSdk", () => {
  it("converts the mixed history to AI SDK messages: tool results in tool messages, signatures kept", () => {
    const { system, messages, tools, breakpoints } = toAiSdk(input())
    const roles = messages.map((m: ModelMessage) => m.role)
    expect(roles).toEqual([
      "user",
      "assistant",
      "tool",
      "assistant",
      "tool",
      "assistant",
      "tool",
      "user",
      "assistant",
      "tool",
    ])
    expect(messages[1]!.content).toEqual([
      {
        type: "reasoning",
        text: "I need the source and the test before changing anything.",
        providerOptions: { anthropic: { signature: "c2lnLWNsYXVkZS0x" } },
      },
      { type: "text", text: "Let me read the source and the test." },
      { type: "tool-call", toolCallId: "toolu_01A", toolName: "read_file", input: { path: "src/sum.ts" } },
      { type: "tool-call", toolCallId: "toolu_01B", toolName: "read_file", input: { path: "test/sum.test.ts" } },
    ])
    expect(Object.keys(tools)).toEqual(["execute_command", "read_file", "replace_in_file", "write_to_file"])
    expect(breakpoints.filter((b) => b.placed).map((b) => b.target)).toEqual(["system", "message", "message"])
    expect(system!.providerOptions).toEqual({ anthropic: { cacheControl: { type: "ephemeral" } } })
  })

  it("sets no cache control for other providers, and keeps Gemini signatures where the SDK reads them", () => {
    const gemini = fixtureModel("gemini")
    const { messages, breakpoints } = toAiSdk(
      input({
        model: gemini,
        prompt: { text: "sys", tools: [] },
        messages: [
          {
            id: "a",
            role: "assistant",
            ts: 1,
            content: [{ type: "tool_use", id: "g", name: "read_file", input: {}, signature: "sig", model: gemini.id }],
          },
        ],
      }),
    )
    expect(breakpoints).toEqual([])
    expect(JSON.stringify(messages)).not.toContain("cacheControl")
    expect(messages[0]!.content).toEqual([
      {
        type: "tool-call",
        toolCallId: "g",
        toolName: "read_file",
        input: {},
        providerOptions: { google: { thoughtSignature: "sig" } },
      },
    ])
  })

  it("declares tools with their JSON Schema", () => {
    const { prompt } = mixedHistory()
    const set = toAiSdkTools(prompt.tools)
    const schema = set.read_file!.inputSchema as { jsonSchema: unknown }
    expect(schema.jsonSchema).toEqual(prompt.tools[1]!.parameters)
  })
})

describe("streamText against a real local server", () => {
  it("sends what our own Anthropic encoder sends, cache breakpoints included, and reads the stream", async () => {
    const server = await startReplayServer("anthropic/anthropic-text.chunks.txt", "anthropic")
    try {
      const anthropic = createAnthropic({ apiKey: "test-key", baseURL: `${server.url}/v1` })
      const converted = toAiSdk(input())
      const result = streamText({
        model: anthropic(claude.id),
        ...aiSdkCall(converted),
        maxOutputTokens: 8192,
        maxRetries: 0,
      })
      const text = await result.text
      const expected = streamLines("anthropic/anthropic-text.chunks.txt")
        .map((l) => JSON.parse(l) as { type: string; delta?: { type: string; text?: string } })
        .filter((e) => e.type === "content_block_delta" && e.delta?.type === "text_delta")
        .map((e) => e.delta!.text)
        .join("")
      expect(text).toBe(expected)

      const sent = server.requests[0]!.body as Record<string, unknown>
      const ours = encodeAnthropic(input({ options: { maxTokens: 8192 } })).body
      expect(sent.system).toEqual(ours.system)
      expect(sent.messages).toEqual(ours.messages)
      const sentTools = sent.tools as { name: string; input_schema: unknown }[]
      expect(sentTools.map((t) => [t.name, t.input_schema])).toEqual(
        (ours.tools as { name: string; input_schema: unknown }[]).map((t) => [t.name, t.input_schema]),
      )
    } finally {
      await server.close()
    }
  })
})
