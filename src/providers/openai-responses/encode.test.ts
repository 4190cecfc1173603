import fc from "fast-check"
import OpenAI from "openai"
import type {
  ResponseCreateParamsBase,
  ResponseCreateParamsStreaming,
  ResponseInputItem,
} from "openai/resources/responses/responses"
import { describe, expect, expectTypeOf, it } from "vitest"
import { expectGolden, fixtureModel, mixedHistory } from "../../../test/fixtures/providers/requests/load.js"
import { openapiErrors } from "../../../test/fixtures/providers/requests/openapi.js"
import { startReplayServer, streamLines } from "../../../test/fixtures/providers/requests/replay-server.js"
import {
  anyHistory,
  lostContent,
  responsesViolations,
} from "../../../test/fixtures/providers/requests/sequence-rules.js"
import type { Message } from "../../history/message.js"
import { resolveModel } from "../../models/resolve.js"
import type { EncodeInput, ThinkingOptions } from "../encode.js"
import { CONTINUATION_TEXT } from "../turns.js"
import { encodeOpenAIResponses } from "./encode.js"

const model = fixtureModel("openai-responses")

function input(overrides: Partial<EncodeInput> = {}): EncodeInput {
  const { prompt, messages } = mixedHistory()
  return {
    prompt,
    messages,
    model,
    options: { thinking: { effort: "medium" }, cache: { sessionId: "session-42", retention: "24h" } },
    ...overrides,
  }
}

describe("OpenAI Responses request bodies", () => {
  it("matches the golden body for the mixed history", () => {
    const result = encodeOpenAIResponses(input())
    expectGolden("openai-responses", result)
    const body = result.body
    expect(body.instructions).toBe(mixedHistory().prompt.text)
    expect(body.store).toBe(false)
    expect(body.include).toEqual(["reasoning.encrypted_content"])
    expect(body.reasoning).toEqual({ effort: "medium", summary: "auto" })
    const items = body.input as ResponseInputItem[]
    const types = items.map((i) => i.type)
    expect(types.filter((t) => t === "function_call")).toHaveLength(5)
    expect(types.filter((t) => t === "function_call_output")).toHaveLength(5)
  })

  it("sends this model's reasoning back as reasoning items with their encrypted content", () => {
    const messages: Message[] = [
      { id: "u", role: "user", ts: 1, content: [{ type: "text", text: "go" }] },
      {
        id: "a",
        role: "assistant",
        ts: 2,
        content: [
          { type: "thinking", text: "summary", signature: "gAAAA-encrypted", id: "rs_1", model: "gpt-5" },
          { type: "thinking", text: "no id", signature: "x", model: "gpt-5" },
          { type: "tool_use", id: "call_1", name: "read_file", input: { path: "a" } },
        ],
      },
      { id: "r", role: "user", ts: 3, content: [{ type: "tool_result", toolUseId: "call_1", content: "A" }] },
    ]
    const result = encodeOpenAIResponses(input({ messages, prompt: { text: "sys", tools: [] } }))
    expect(result.body.input).toEqual([
      { type: "message", role: "user", content: [{ type: "input_text", text: "go" }] },
      {
        type: "reasoning",
        id: "rs_1",
        summary: [{ type: "summary_text", text: "summary" }],
        encrypted_content: "gAAAA-encrypted",
      },
      { type: "function_call", call_id: "call_1", name: "read_file", arguments: '{"path":"a"}' },
      { type: "function_call_output", call_id: "call_1", output: "A" },
    ])
    expect(result.diagnostics.map((d) => d.code)).toEqual(["reasoning-not-sent"])
  })

  it("has the official SDK's request type and is valid against OpenAI's OpenAPI document", () => {
    const { body } = encodeOpenAIResponses(input({ options: { toolChoice: "required", parallelToolCalls: true } }))
    expectTypeOf(body).toExtend<ResponseCreateParamsBase>()
    const streaming: ResponseCreateParamsStreaming = { ...body, stream: true }
    expect(streaming.tool_choice).toBe("required")
    expect(openapiErrors("CreateResponse", body)).toEqual([])
    const broken = { ...body, input: [{ type: "function_call", call_id: "c", name: "f", arguments: {} }] }
    expect(openapiErrors("CreateResponse", broken).length).toBeGreaterThan(0)
  })

  it("leaves reasoning settings out for a model that does not reason", () => {
    const plain = { ...model, id: "gpt-4.1", capabilities: { ...model.capabilities, thinking: false } }
    const { body } = encodeOpenAIResponses(input({ model: plain, options: { temperature: 0.5, store: true } }))
    expect(body.reasoning).toBeUndefined()
    expect(body.include).toBeUndefined()
    expect(body.temperature).toBe(0.5)
    expect(body.store).toBe(true)
  })
})

describe("through the official OpenAI SDK", () => {
  it("sends our body unchanged to a real server and reads the recorded stream back", async () => {
    const file = "openai-responses/openai-reasoning-encrypted-content.1.chunks.txt"
    const server = await startReplayServer(file, "openai-responses")
    try {
      const { body } = encodeOpenAIResponses(input())
      const client = new OpenAI({ apiKey: "test-key", baseURL: `${server.url}/v1`, maxRetries: 0 })
      const stream = await client.responses.create({ ...body, stream: true })
      const seen: string[] = []
      for await (const event of stream) seen.push(event.type)
      expect(server.requests).toHaveLength(1)
      expect(server.requests[0]!.url).toBe("/v1/responses")
      expect(server.requests[0]!.body).toEqual(JSON.parse(JSON.stringify(body)))
      expect(seen).toEqual(streamLines(file).map((l) => (JSON.parse(l) as { type: string }).type))
      expect(seen).toContain("response.completed")
    } finally {
      await server.close()
    }
  })
})

describe("reasoning efforts fitted to the model's catalog rules", () => {
  const reasoning = (id: string, thinking: ThinkingOptions | false) => {
    const result = encodeOpenAIResponses(input({ model: resolveModel(id).model, options: { thinking } }))
    const fitting = new Set(["thinking-not-disabled", "thinking-effort-adjusted"])
    return { sent: result.body.reasoning, codes: result.diagnostics.map((d) => d.code).filter((c) => fitting.has(c)) }
  }

  it("turns reasoning off only where the model allows it, else asks for its least effort", () => {
    // Before: {effort: "none"} for gpt-5 and o4-mini, which both refuse it.
    const gpt5 = reasoning("gpt-5", false)
    expect(gpt5.sent).toEqual({ effort: "minimal", summary: "auto" })
    expect(gpt5.codes).toContain("thinking-not-disabled")
    expect(reasoning("o4-mini", false).sent).toEqual({ effort: "low", summary: "auto" })
    expect(reasoning("gpt-5.4", false).sent).toEqual({ effort: "none" })
  })

  it("fits the effort to the ones the model lists", () => {
    expect(reasoning("o4-mini", { effort: "xhigh" }).sent).toEqual({ effort: "high", summary: "auto" })
    expect(reasoning("gpt-5.1", { effort: "minimal" }).sent).toEqual({ effort: "low", summary: "auto" })
    expect(reasoning("gpt-5.4", { effort: "xhigh" })).toEqual({ sent: { effort: "xhigh", summary: "auto" }, codes: [] })
  })
})

describe("the input items OpenAI Responses accepts", () => {
  const reasoning = (id: string) => ({ type: "thinking" as const, text: "why", id, signature: "ZW5j", model: model.id })

  it("sends no reasoning item that no output of its turn follows", () => {
    const messages: Message[] = [
      { id: "u", role: "user", ts: 1, content: [{ type: "text", text: "hi" }] },
      // Text first, then reasoning: nothing follows the reasoning item. Then reasoning and only blank text.
      { id: "a", role: "assistant", ts: 2, content: [{ type: "text", text: "hello" }, reasoning("rs_1")] },
      { id: "u2", role: "user", ts: 3, content: [{ type: "text", text: "and?" }] },
      { id: "b", role: "assistant", ts: 4, content: [reasoning("rs_2"), { type: "text", text: "\n\n" }] },
      { id: "u3", role: "user", ts: 5, content: [{ type: "text", text: "well?" }] },
    ]
    const result = encodeOpenAIResponses(input({ messages, prompt: { text: "", tools: [] } }))
    expect(responsesViolations(result.body)).toEqual([])
    expect(JSON.stringify(result.body.input)).not.toContain("rs_")
    expect(result.diagnostics.map((d) => d.code)).toContain("reasoning-without-output")
  })

  it("sends a user turn when nothing in the history can be sent", () => {
    const messages: Message[] = [{ id: "u", role: "user", ts: 1, content: [{ type: "text", text: " " }] }]
    const result = encodeOpenAIResponses(input({ messages, prompt: { text: "", tools: [] } }))
    expect(result.body.input).toEqual([
      { type: "message", role: "user", content: [{ type: "input_text", text: CONTINUATION_TEXT }] },
    ])
  })

  it("for any history: a valid sequence, valid against the OpenAPI document, and no content lost", () => {
    const { prompt } = mixedHistory()
    const withIds = anyHistory(model.id).map((history) =>
      history.map((m, i) => ({
        ...m,
        content: m.content.map((b, j) => (b.type === "thinking" && b.signature ? { ...b, id: `rs_${i}_${j}` } : b)),
      })),
    )
    fc.assert(
      fc.property(withIds, fc.boolean(), fc.boolean(), (messages, xml, context) => {
        const result = encodeOpenAIResponses({
          prompt: {
            ...prompt,
            contextMessage: context ? prompt.contextMessage : undefined,
            toolCalling: xml ? "xml" : "native",
          },
          messages,
          model,
          options: { thinking: { effort: "low" } },
        })
        expect(responsesViolations(result.body)).toEqual([])
        expect(openapiErrors("CreateResponse", result.body)).toEqual([])
        const kept = messages.map((m) =>
          m.role === "assistant" ? { ...m, content: m.content.filter((b) => b.type !== "image") } : m,
        )
        expect(lostContent(kept, result.body, { ids: !xml })).toEqual([])
      }),
      { numRuns: 300 },
    )
  })
})
