import { type GenerationConfig, GoogleGenAI, type Tool, type ToolConfig } from "@google/genai"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { expectGolden, fixtureModel, mixedHistory } from "../../../test/fixtures/providers/requests/load.js"
import { startReplayServer, streamLines } from "../../../test/fixtures/providers/requests/replay-server.js"
import { anyHistory, geminiViolations, lostContent } from "../../../test/fixtures/providers/requests/sequence-rules.js"
import type { Message } from "../../history/message.js"
import { resolveModel } from "../../models/resolve.js"
import type { EncodeInput, ThinkingOptions } from "../encode.js"
import { CONTINUATION_TEXT } from "../turns.js"
import { encodeGemini, geminiGeneration, PLACEHOLDER_THOUGHT_SIGNATURE } from "./encode.js"

const model = fixtureModel("gemini")
const gemini25 = { ...model, id: "gemini-2.5-pro" }

function input(overrides: Partial<EncodeInput> = {}): EncodeInput {
  const { prompt, messages } = mixedHistory()
  return { prompt, messages, model, options: { thinking: { effort: "high" } }, ...overrides }
}

/** A conversation made by the target model itself, with its signatures. */
const own: Message[] = [
  { id: "u", role: "user", ts: 1, content: [{ type: "text", text: "weather in Paris and Rome?" }] },
  {
    id: "a",
    role: "assistant",
    ts: 2,
    content: [
      { type: "thinking", text: "Two cities, two calls.", signature: "sig-thought", model: model.id },
      { type: "tool_use", id: "g1", name: "weather", input: { city: "Paris" }, signature: "sig-call", model: model.id },
      { type: "tool_use", id: "g2", name: "weather", input: { city: "Rome" } },
    ],
  },
  {
    id: "r",
    role: "user",
    ts: 3,
    content: [
      { type: "tool_result", toolUseId: "g1", content: "18C" },
      { type: "tool_result", toolUseId: "g2", content: "24C" },
    ],
  },
  {
    id: "b",
    role: "assistant",
    ts: 4,
    content: [
      { type: "thinking", text: "", signature: "sig-text", model: model.id },
      { type: "text", text: "Paris 18C, Rome 24C." },
    ],
  },
]

describe("Gemini request bodies", () => {
  it("matches the golden body for the mixed history", () => {
    const result = encodeGemini(input())
    expectGolden("gemini", result)
    expect(result.body.contents.map((c) => c.role)).toEqual([
      "user",
      "model",
      "user",
      "model",
      "user",
      "model",
      "user",
      "model",
      "user",
    ])
    expect(result.body.generationConfig?.thinkingConfig).toEqual({ includeThoughts: true, thinkingLevel: "HIGH" })
  })

  it("keeps each thought signature on its part, and a lone signature on the part after it", () => {
    const { body, diagnostics } = encodeGemini(input({ messages: own, prompt: { text: "sys", tools: [] } }))
    expect(body.contents[1]!.parts).toEqual([
      { text: "Two cities, two calls.", thought: true, thoughtSignature: "sig-thought" },
      { functionCall: { name: "weather", args: { city: "Paris" } }, thoughtSignature: "sig-call" },
      { functionCall: { name: "weather", args: { city: "Rome" } } },
    ])
    expect(body.contents[2]!.parts).toEqual([
      { functionResponse: { name: "weather", response: { output: "18C" } } },
      { functionResponse: { name: "weather", response: { output: "24C" } } },
    ])
    expect(body.contents[3]!.parts).toEqual([{ text: "Paris 18C, Rome 24C.", thoughtSignature: "sig-text" }])
    expect(diagnostics.map((d) => d.code)).not.toContain("thought-signature-placeholder")
  })

  it("gives Gemini 3 the documented placeholder for calls that lost their signature, only on the first", () => {
    const foreign = own.map((m) => ({
      ...m,
      content: m.content.map((b) => ({ ...b, model: "claude-x" })),
    })) as Message[]
    const { body, diagnostics } = encodeGemini(input({ messages: foreign, prompt: { text: "sys", tools: [] } }))
    const calls = body.contents[1]!.parts!.filter((p) => p.functionCall)
    expect(calls.map((p) => p.thoughtSignature)).toEqual([PLACEHOLDER_THOUGHT_SIGNATURE, undefined])
    expect(JSON.stringify(body)).not.toContain("sig-")
    expect(diagnostics.map((d) => d.code)).toContain("thought-signature-placeholder")
    const older = encodeGemini(input({ model: gemini25, messages: foreign, prompt: { text: "sys", tools: [] } }))
    expect(JSON.stringify(older.body)).not.toContain(PLACEHOLDER_THOUGHT_SIGNATURE)
  })

  it("keeps turns alternating: successive messages of one role join", () => {
    const messages: Message[] = [
      { id: "u", role: "user", ts: 1, content: [{ type: "text", text: "hi" }] },
      { id: "a", role: "assistant", ts: 2, content: [{ type: "text", text: "one" }] },
      { id: "b", role: "assistant", ts: 3, content: [{ type: "text", text: "two" }] },
    ]
    const { body } = encodeGemini(input({ messages, prompt: { text: "sys", tools: [] } }))
    expect(body.contents).toEqual([
      { role: "user", parts: [{ text: "hi" }] },
      { role: "model", parts: [{ text: "one" }, { text: "two" }] },
    ])
  })

  it("maps thinking and tool choice to Gemini's settings", () => {
    const budget = encodeGemini(
      input({ model: gemini25, options: { thinking: { effort: "low" }, toolChoice: { name: "read_file" } } }),
    )
    expect(budget.body.generationConfig?.thinkingConfig).toEqual({ includeThoughts: true, thinkingBudget: 2048 })
    expect(budget.body.toolConfig).toEqual({
      functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["read_file"] },
    })
    expect(
      encodeGemini(input({ model: gemini25, options: { thinking: false } })).body.generationConfig?.thinkingConfig,
    ).toEqual({
      thinkingBudget: 0,
    })
    expect(geminiGeneration({ id: "gemini-3.1-flash" })).toBe(3)
    expect(geminiGeneration({ id: "models/gemini-2.0-flash" })).toBe(2)
  })
})

describe("the content sequence Gemini accepts", () => {
  const plain = { text: "system", tools: [] }

  it("starts with a user turn when the history starts with a model function call, and says so", () => {
    const messages: Message[] = [
      { id: "a", role: "assistant", ts: 1, content: [{ type: "tool_use", id: "c", name: "read_file", input: {} }] },
      { id: "r", role: "user", ts: 2, content: [{ type: "tool_result", toolUseId: "c", content: "text" }] },
    ]
    const result = encodeGemini(input({ messages, prompt: plain }))
    expect(result.body.contents.map((c) => c.role)).toEqual(["user", "model", "user"])
    expect(result.body.contents[0]).toEqual({ role: "user", parts: [{ text: CONTINUATION_TEXT }] })
    expect(geminiViolations(result.body as Parameters<typeof geminiViolations>[0])).toEqual([])
    expect(result.diagnostics.map((d) => d.code)).toContain("user-turn-inserted")
  })

  it("sends a user turn when nothing in the history can be sent", () => {
    const messages: Message[] = [{ id: "u", role: "user", ts: 1, content: [{ type: "text", text: "" }] }]
    const result = encodeGemini(input({ messages, prompt: plain }))
    expect(result.body.contents).toEqual([{ role: "user", parts: [{ text: CONTINUATION_TEXT }] }])
  })

  it("keeps an image of a model turn as inline data", () => {
    const messages: Message[] = [
      { id: "u", role: "user", ts: 1, content: [{ type: "text", text: "draw" }] },
      { id: "a", role: "assistant", ts: 2, content: [{ type: "image", mediaType: "image/png", data: "aW1n" }] },
    ]
    const result = encodeGemini(input({ messages, prompt: plain }))
    expect(result.body.contents[1]).toEqual({
      role: "model",
      parts: [{ inlineData: { mimeType: "image/png", data: "aW1n" } }],
    })
  })

  it("for any history: a valid sequence and no content lost", () => {
    const { prompt } = mixedHistory()
    fc.assert(
      fc.property(anyHistory(model.id), fc.boolean(), fc.boolean(), (messages, xml, context) => {
        const result = encodeGemini({
          prompt: {
            ...prompt,
            contextMessage: context ? prompt.contextMessage : undefined,
            toolCalling: xml ? "xml" : "native",
          },
          messages,
          model,
        })
        expect(geminiViolations(result.body as Parameters<typeof geminiViolations>[0])).toEqual([])
        // Gemini calls and responses carry names, not ids.
        expect(lostContent(messages, result.body, { ids: false })).toEqual([])
      }),
      { numRuns: 400 },
    )
  })
})

describe("through the official Google Gen AI SDK", () => {
  it("sends the same body the SDK builds from ours to a real server, and reads the stream back", async () => {
    const file = "gemini/google-tool-call-gemini3.chunks.txt"
    const server = await startReplayServer(file, "gemini")
    try {
      const { body } = encodeGemini(input())
      const ai = new GoogleGenAI({ apiKey: "test-key", httpOptions: { baseUrl: server.url } })
      const stream = await ai.models.generateContentStream({
        model: model.id,
        contents: body.contents,
        config: {
          systemInstruction: body.systemInstruction,
          // The SDK types enum-valued fields as TypeScript enums; ours are their wire strings.
          tools: body.tools as Tool[] | undefined,
          toolConfig: body.toolConfig as ToolConfig | undefined,
          ...(body.generationConfig as GenerationConfig | undefined),
        },
      })
      const calls: unknown[] = []
      for await (const chunk of stream) calls.push(...(chunk.functionCalls ?? []))
      expect(server.requests).toHaveLength(1)
      expect(server.requests[0]!.url).toBe(`/v1beta/models/${model.id}:streamGenerateContent?alt=sse`)
      expect(server.requests[0]!.body).toEqual(JSON.parse(JSON.stringify(body)))
      const expected = streamLines(file).flatMap(
        (l) =>
          (
            JSON.parse(l) as { candidates?: { content?: { parts?: { functionCall?: unknown }[] } }[] }
          ).candidates?.[0]?.content?.parts
            ?.filter((p) => p.functionCall)
            .map((p) => p.functionCall) ?? [],
      )
      expect(expected.length).toBeGreaterThan(0)
      expect(calls).toEqual(expected)
    } finally {
      await server.close()
    }
  })
})

describe("thinking settings fitted to the model's catalog rules", () => {
  const row = (id: string) => resolveModel(id).model
  const config = (id: string, thinking: ThinkingOptions | false) => {
    const result = encodeGemini(input({ model: row(id), options: { thinking } }))
    return { sent: result.body.generationConfig?.thinkingConfig, codes: result.diagnostics.map((d) => d.code) }
  }

  it("asks gemini-2.5-pro for its minimum budget when thinking is off, since it cannot turn it off", () => {
    // Before: thinkingBudget 0, which gemini-2.5-pro refuses.
    const off = config("gemini-2.5-pro", false)
    expect(off.sent).toEqual({ thinkingBudget: 128 })
    expect(off.codes).toContain("thinking-not-disabled")
    expect(config("gemini-2.5-flash", false).sent).toEqual({ thinkingBudget: 0 })
    expect(config("gemini-2.5-flash-lite", false).sent).toEqual({ thinkingBudget: 0 })
  })

  it("clamps budgets into each model's range", () => {
    const small = config("gemini-2.5-flash-lite", { budgetTokens: 100 })
    expect(small.sent).toEqual({ includeThoughts: true, thinkingBudget: 512 })
    expect(small.codes).toContain("thinking-budget-adjusted")
    expect(config("gemini-2.5-flash", { effort: "max" }).sent).toEqual({
      includeThoughts: true,
      thinkingBudget: 24_576,
    })
    expect(config("gemini-2.5-pro", { budgetTokens: 64 }).sent).toEqual({ includeThoughts: true, thinkingBudget: 128 })
    expect(config("gemini-2.5-pro", { budgetTokens: 20_000 }).codes).not.toContain("thinking-budget-adjusted")
  })

  it("sends only the thinking levels a Gemini 3 model takes", () => {
    const medium = config("gemini-3-pro-preview", { effort: "medium" })
    expect(medium.sent).toEqual({ includeThoughts: true, thinkingLevel: "HIGH" })
    expect(medium.codes).toContain("thinking-effort-adjusted")
    expect(config("gemini-3-pro-preview", { effort: "minimal" }).sent).toEqual({
      includeThoughts: true,
      thinkingLevel: "LOW",
    })
    expect(config("gemini-3-flash-preview", { effort: "medium" }).sent).toEqual({
      includeThoughts: true,
      thinkingLevel: "MEDIUM",
    })
    // Off is not possible on Gemini 3: the least level the model takes.
    expect(config("gemini-3-flash-preview", false).sent).toEqual({ thinkingLevel: "MINIMAL" })
    expect(config("gemini-3.8-flash", { effort: "minimal" }).sent).toEqual({
      includeThoughts: true,
      thinkingLevel: "LOW",
    })
  })
})
