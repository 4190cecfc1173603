import Anthropic from "@anthropic-ai/sdk"
import type {
  MessageCreateParamsBase as BetaMessageCreateParamsBase,
  MessageCreateParamsStreaming as BetaMessageCreateParamsStreaming,
} from "@anthropic-ai/sdk/resources/beta/messages/messages"
import type { ContentBlockParam, MessageCreateParamsBase } from "@anthropic-ai/sdk/resources/messages"
import fc from "fast-check"
import { describe, expect, expectTypeOf, it } from "vitest"
import { expectGolden, fixtureModel, mixedHistory } from "../../../test/fixtures/providers/requests/load.js"
import { startReplayServer, streamLines } from "../../../test/fixtures/providers/requests/replay-server.js"
import {
  anthropicViolations,
  anyHistory,
  lostContent,
} from "../../../test/fixtures/providers/requests/sequence-rules.js"
import { type Message, text } from "../../history/message.js"
import { resolveModel } from "../../models/resolve.js"
import type { EncodeInput, ThinkingOptions } from "../encode.js"
import { CONTINUATION_TEXT } from "../turns.js"
import { EMPTY_ERROR_RESULT_TEXT, encodeAnthropic } from "./encode.js"

const model = fixtureModel("anthropic")

function input(overrides: Partial<EncodeInput> = {}): EncodeInput {
  const { prompt, messages } = mixedHistory()
  return { prompt, messages, model, options: { maxTokens: 8192, thinking: { budgetTokens: 4096 } }, ...overrides }
}

describe("Anthropic request bodies", () => {
  it("matches the golden body for the mixed history", () => {
    const result = encodeAnthropic(input())
    expectGolden("anthropic", result)
    const body = result.body
    // The same model's thinking keeps its signature; the odd id is rewritten in the call and its result.
    const second = body.messages[1]!.content as ContentBlockParam[]
    expect(second[0]).toEqual({
      type: "thinking",
      thinking: "I need the source and the test before changing anything.",
      signature: "c2lnLWNsYXVkZS0x",
    })
    const json = JSON.stringify(body)
    expect(json).not.toContain("call:1/replace.sum")
    expect(json.match(/call_1_replace_sum_[a-z0-9]+/g)?.length).toBe(2)
    expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 4096 })
  })

  it("writes the XML dialect as text and sends no tools", () => {
    const { prompt, messages } = mixedHistory()
    const result = encodeAnthropic(input({ prompt: { ...prompt, toolCalling: "xml" } }))
    expectGolden("anthropic-xml", result)
    expect(result.body.tools).toBeUndefined()
    const json = JSON.stringify(result.body)
    expect(json).not.toContain('"tool_use"')
    expect(json).not.toContain('"tool_result"')
    expect(json).toContain("<read_file>\\n<path>src/sum.ts</path>\\n</read_file>")
    expect(messages.length).toBe(9)
  })

  it("has the official SDK's request type (the beta one: context management and compaction blocks are beta)", () => {
    const { body } = encodeAnthropic(input())
    expectTypeOf(body).toExtend<BetaMessageCreateParamsBase>()
    const streaming: BetaMessageCreateParamsStreaming = { ...body, stream: true }
    expect(streaming.stream).toBe(true)
  })

  it("turns thinking off, with a reason, when a tool is forced", () => {
    const result = encodeAnthropic(
      input({ options: { thinking: { budgetTokens: 2048 }, toolChoice: { name: "read_file" } } }),
    )
    expect(result.body.thinking).toBeUndefined()
    expect(result.body.tool_choice).toEqual({ type: "tool", name: "read_file" })
    expect(result.diagnostics.map((d) => d.code)).toContain("thinking-with-forced-tool")
  })

  it("turns thinking off when the tool turn it continues has no thinking block", () => {
    const messages: Message[] = [
      { id: "u", role: "user", ts: 1, content: [{ type: "text", text: "list files" }] },
      {
        id: "a",
        role: "assistant",
        ts: 2,
        content: [{ type: "tool_use", id: "call_1", name: "read_file", input: { path: "." } }],
      },
      {
        id: "r",
        role: "user",
        ts: 3,
        content: [{ type: "tool_result", toolUseId: "call_1", content: "a.ts" }],
      },
    ]
    const result = encodeAnthropic(input({ messages, options: { thinking: { effort: "high" } } }))
    expect(result.body.thinking).toBeUndefined()
    expect(result.body.output_config).toBeUndefined()
    expect(result.diagnostics.map((d) => d.code)).toContain("thinking-turn-unsigned")
    // After a new user message the model starts a fresh turn, and adaptive thinking with an effort is sent.
    const fresh = encodeAnthropic(
      input({
        messages: [...messages, { id: "u2", role: "user", ts: 4, content: [{ type: "text", text: "thanks" }] }],
        options: { thinking: { effort: "minimal" } },
      }),
    )
    expect(fresh.body.thinking).toEqual({ type: "adaptive" })
    expect(fresh.body.output_config).toEqual({ effort: "low" })
  })

  it("finds the turn's start past tool results that also carry text blocks", () => {
    const messages: Message[] = [
      { id: "u", role: "user", ts: 1, content: [{ type: "text", text: "list files" }] },
      {
        id: "a1",
        role: "assistant",
        ts: 2,
        content: [{ type: "tool_use", id: "call_1", name: "list_files", input: { path: "." } }],
      },
      {
        id: "r1",
        role: "user",
        ts: 3,
        content: [
          { type: "tool_result", toolUseId: "call_1", content: "a.ts" },
          { type: "text", text: "<environment_update>a.ts changed</environment_update>" },
        ],
      },
      {
        id: "a2",
        role: "assistant",
        ts: 4,
        content: [
          { type: "thinking", text: "read it", signature: "c2ln", model: model.id },
          { type: "tool_use", id: "call_2", name: "read_file", input: { path: "a.ts" }, model: model.id },
        ],
      },
      { id: "r2", role: "user", ts: 5, content: [{ type: "tool_result", toolUseId: "call_2", content: "x" }] },
    ]
    const result = encodeAnthropic(input({ messages, options: { thinking: { budgetTokens: 2048 } } }))
    expect(result.body.thinking).toBeUndefined()
    expect(result.diagnostics.map((d) => d.code)).toContain("thinking-turn-unsigned")
  })

  it("caps a thinking budget that does not fit under max_tokens", () => {
    const result = encodeAnthropic(input({ options: { maxTokens: 3000, thinking: { budgetTokens: 8000 } } }))
    expect(result.body.thinking).toEqual({ type: "enabled", budget_tokens: 2999 })
    expect(result.diagnostics.map((d) => d.code)).toContain("thinking-budget-capped")
  })

  it("does not send temperature, and says so", () => {
    const result = encodeAnthropic(input({ options: { temperature: 0.2 } }))
    expect("temperature" in result.body).toBe(false)
    expect(result.diagnostics.map((d) => d.code)).toContain("temperature-unsupported")
  })

  it("writes one-hour breakpoints with their ttl, and a tools breakpoint when asked and big enough", () => {
    const options = { cache: { ttl: "1h" as const, breakpoints: { tools: true } } }
    const small = encodeAnthropic(input({ options }))
    const tools = small.breakpoints.find((b) => b.target === "tools")!
    expect(tools.placed).toBe(false)
    expect(tools.reason).toMatch(/below the minimum of 256/)
    expect(small.body.system).toEqual([expect.objectContaining({ cache_control: { type: "ephemeral", ttl: "1h" } })])

    const lowMinimum = { ...model, cache: { ...model.cache!, minTokens: 64 } }
    const result = encodeAnthropic(input({ model: lowMinimum, options }))
    const defs = result.body.tools as { cache_control?: unknown }[]
    expect(defs[defs.length - 1]!.cache_control).toEqual({ type: "ephemeral", ttl: "1h" })
    expect(result.breakpoints.filter((b) => b.placed).map((b) => b.target)).toEqual([
      "tools",
      "system",
      "message",
      "message",
    ])
  })

  it("leaves out the content of a tool result that has none", () => {
    const messages: Message[] = [
      { id: "a", role: "assistant", ts: 1, content: [{ type: "tool_use", id: "t", name: "read_file", input: {} }] },
      {
        id: "r",
        role: "user",
        ts: 2,
        content: [{ type: "tool_result", toolUseId: "t", content: [{ type: "text", text: "" }] }],
      },
    ]
    const result = encodeAnthropic(input({ messages, prompt: { text: "system", tools: [] } }))
    // (index 2: a user turn is put before the leading assistant message)
    expect(result.body.messages[2]!.content).toEqual([{ type: "tool_result", tool_use_id: "t" }])
  })

  it("replaces an image type Anthropic does not take by a note", () => {
    const messages: Message[] = [
      {
        id: "u",
        role: "user",
        ts: 1,
        content: [{ type: "image", mediaType: "image/bmp", data: "Qk0=" }],
      },
    ]
    const result = encodeAnthropic(input({ messages, prompt: { text: "system", tools: [] } }))
    expect(result.body.messages[0]!.content).toEqual([
      { type: "text", text: "[image omitted: type image/bmp is not supported]" },
    ])
    expect(result.diagnostics.map((d) => d.code)).toContain("image-type-unsupported")
  })
})

/** Random conversations of user text, assistant thinking/text/calls and their results. */
const conversation = fc
  .array(
    fc.record({
      text: fc.string({ maxLength: 3000 }),
      thinking: fc.boolean(),
      calls: fc.integer({ min: 0, max: 3 }),
    }),
    { minLength: 1, maxLength: 12 },
  )
  .map((turns) => {
    const messages: Message[] = []
    turns.forEach((t, i) => {
      messages.push({ id: `u${i}`, role: "user", ts: i, content: [{ type: "text", text: t.text || "go" }] })
      const content: Message["content"] = []
      if (t.thinking) content.push({ type: "thinking", text: "hmm", signature: `s${i}`, model: model.id })
      content.push({ type: "text", text: `answer ${i}` })
      for (let c = 0; c < t.calls; c++)
        content.push({ type: "tool_use", id: `c${i}_${c}`, name: "read_file", input: {} })
      messages.push({ id: `a${i}`, role: "assistant", ts: i, content })
    })
    return messages
  })

describe("cache breakpoints in Anthropic bodies", () => {
  it("never exceed four, never sit on thinking, and are where the report says", () => {
    fc.assert(
      fc.property(
        conversation,
        fc.record({ tools: fc.boolean(), system: fc.boolean(), userMessages: fc.integer({ min: 0, max: 6 }) }),
        (messages, breakpoints) => {
          const result = encodeAnthropic(input({ messages, options: { cache: { breakpoints } } }))
          const json = JSON.stringify(result.body)
          const written = json.split('"cache_control"').length - 1
          const placed = result.breakpoints.filter((b) => b.placed)
          expect(written).toBe(placed.length)
          expect(written).toBeLessThanOrEqual(4)
          for (const m of result.body.messages)
            for (const b of m.content as ContentBlockParam[])
              if (b.type === "thinking" || b.type === "redacted_thinking") expect("cache_control" in b).toBe(false)
          for (const p of placed) {
            expect(p.prefixTokens).toBeGreaterThanOrEqual(model.cache!.minTokens)
            if (p.target === "message") {
              const block = (result.body.messages[p.messageIndex!]!.content as ContentBlockParam[])[p.blockIndex!]!
              expect(block).toHaveProperty("cache_control")
            }
          }
        },
      ),
      { numRuns: 150 },
    )
  })
})

describe("the message sequence Anthropic accepts", () => {
  const plain = { text: "system", tools: [] }

  it("drops whitespace-only text, and the last user message's breakpoint lands on a kept block", () => {
    // "\n\n" before a call, as decoded from a real stream; " " after a result.
    const messages: Message[] = [
      { id: "u", role: "user", ts: 1, content: [{ type: "text", text: "x".repeat(2000) }] },
      {
        id: "a",
        role: "assistant",
        ts: 2,
        content: [
          { type: "text", text: "\n\n" },
          { type: "tool_use", id: "t", name: "read_file", input: { path: "a" } },
        ],
      },
      {
        id: "r",
        role: "user",
        ts: 3,
        content: [
          { type: "tool_result", toolUseId: "t", content: "file text" },
          { type: "text", text: " " },
        ],
      },
    ]
    const result = encodeAnthropic(input({ messages, prompt: plain, options: { maxTokens: 8192 } }))
    expect(anthropicViolations(result.body as Parameters<typeof anthropicViolations>[0])).toEqual([])
    expect(result.body.messages[1]!.content).toEqual([
      { type: "tool_use", id: "t", name: "read_file", input: { path: "a" } },
    ])
    expect(result.body.messages[2]!.content).toEqual([
      { type: "tool_result", tool_use_id: "t", content: "file text", cache_control: { type: "ephemeral" } },
    ])
    expect(result.diagnostics.map((d) => d.code)).toContain("text-blank-dropped")
  })

  it("sends no blank tool result text and gives an error result without output a text", () => {
    const messages: Message[] = [
      { id: "u", role: "user", ts: 1, content: [{ type: "text", text: "go" }] },
      {
        id: "a",
        role: "assistant",
        ts: 2,
        content: [
          { type: "tool_use", id: "t1", name: "read_file", input: {} },
          { type: "tool_use", id: "t2", name: "read_file", input: {} },
        ],
      },
      {
        id: "r",
        role: "user",
        ts: 3,
        content: [
          { type: "tool_result", toolUseId: "t1", content: " \n" },
          { type: "tool_result", toolUseId: "t2", content: [{ type: "text", text: "  " }], isError: true },
        ],
      },
    ]
    const result = encodeAnthropic(input({ messages, prompt: plain }))
    expect(result.body.messages[2]!.content).toEqual([
      { type: "tool_result", tool_use_id: "t1" },
      { type: "tool_result", tool_use_id: "t2", content: EMPTY_ERROR_RESULT_TEXT, is_error: true },
    ])
  })

  it("sends unsigned whitespace thinking nowhere", () => {
    const messages: Message[] = [
      { id: "u", role: "user", ts: 1, content: [{ type: "text", text: "go" }] },
      { id: "a", role: "assistant", ts: 2, content: [{ type: "thinking", text: " \n", model: model.id }, text("ok")] },
    ]
    const result = encodeAnthropic(input({ messages, prompt: plain }))
    expect(result.body.messages[1]!.content).toEqual([{ type: "text", text: "ok" }])
  })

  it("puts a user turn before a history that starts with the assistant, and says so", () => {
    const messages: Message[] = [
      { id: "a", role: "assistant", ts: 1, content: [text("Earlier answer.")] },
      { id: "u", role: "user", ts: 2, content: [text("go on")] },
    ]
    const result = encodeAnthropic(input({ messages, prompt: plain }))
    expect(result.body.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"])
    expect(result.body.messages[0]!.content).toEqual([{ type: "text", text: CONTINUATION_TEXT }])
    expect(result.diagnostics.map((d) => d.code)).toContain("user-turn-inserted")
  })

  it("merges the two user messages a refusal round trip leaves, and an empty history still has a user turn", () => {
    const messages: Message[] = [
      { id: "u1", role: "user", ts: 1, content: [text("do the bad thing")] },
      { id: "a", role: "assistant", ts: 2, content: [] },
      { id: "u2", role: "user", ts: 3, content: [text("then something else")] },
    ]
    const result = encodeAnthropic(input({ messages, prompt: plain }))
    expect(result.body.messages).toEqual([
      { role: "user", content: [text("do the bad thing"), text("then something else")] },
    ])
    expect(result.diagnostics.map((d) => d.code)).toContain("messages-merged")
    const empty = encodeAnthropic(
      input({ messages: [{ id: "u", role: "user", ts: 1, content: [text(" ")] }], prompt: plain }),
    )
    expect(empty.body.messages).toEqual([{ role: "user", content: [{ type: "text", text: CONTINUATION_TEXT }] }])
  })

  it("for any history: a valid sequence, blocks with breakpoints kept, and no content lost", () => {
    const { prompt } = mixedHistory()
    fc.assert(
      fc.property(
        anyHistory(model.id),
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        (messages, xml, context, think, system) => {
          const result = encodeAnthropic({
            prompt: {
              ...prompt,
              contextMessage: context ? prompt.contextMessage : undefined,
              toolCalling: xml ? "xml" : "native",
            },
            messages,
            // A model that takes system messages in the conversation, or one that does not.
            model: system ? { ...model, capabilities: { ...model.capabilities, systemMessages: true } } : model,
            options: {
              maxTokens: 8192,
              thinking: think ? { budgetTokens: 2048 } : undefined,
              cache: { breakpoints: { tools: true, system: true, userMessages: 4 } },
            },
          })
          expect(anthropicViolations(result.body as Parameters<typeof anthropicViolations>[0])).toEqual([])
          expect(lostContent(messages, result.body, { ids: !xml })).toEqual([])
          for (const p of result.breakpoints.filter((b) => b.placed && b.target === "message")) {
            const block = (result.body.messages[p.messageIndex!]!.content as ContentBlockParam[])[p.blockIndex!]!
            expect(block).toHaveProperty("cache_control")
          }
        },
      ),
      { numRuns: 400 },
    )
  })
})

describe("through the official Anthropic SDK", () => {
  it("sends our body unchanged to a real server and reads the recorded stream back", async () => {
    const server = await startReplayServer("anthropic/anthropic-text.chunks.txt", "anthropic")
    try {
      const { body } = encodeAnthropic(input())
      const client = new Anthropic({ apiKey: "test-key", baseURL: server.url, maxRetries: 0 })
      // Without context management the body holds only GA fields.
      const message = await client.messages.stream(body as MessageCreateParamsBase).finalMessage()
      expect(server.requests).toHaveLength(1)
      expect(server.requests[0]!.url).toBe("/v1/messages")
      expect(server.requests[0]!.body).toEqual(JSON.parse(JSON.stringify(body)))
      const expected = streamLines("anthropic/anthropic-text.chunks.txt")
        .map((l) => JSON.parse(l) as { type: string; delta?: { type: string; text?: string } })
        .filter((e) => e.type === "content_block_delta" && e.delta?.type === "text_delta")
        .map((e) => e.delta!.text)
        .join("")
      expect(expected.length).toBeGreaterThan(0)
      expect(message.content).toEqual([expect.objectContaining({ type: "text", text: expected })])
    } finally {
      await server.close()
    }
  })
})

describe("thinking fitted to the model's catalog rules", () => {
  const send = (id: string, thinking: ThinkingOptions | false) => {
    const result = encodeAnthropic({ ...input(), messages: [], model: resolveModel(id).model, options: { thinking } })
    return { body: result.body, codes: result.diagnostics.map((d) => d.code) }
  }

  it("never sends disabled thinking to a model whose thinking is always on", () => {
    // Before: {type: "disabled"}, which Claude Opus 5.5 and Fable 5.1 answer with a 400.
    const opus = send("claude-opus-5-5", false)
    expect(opus.body.thinking).toEqual({ type: "adaptive" })
    expect(opus.body.output_config).toEqual({ effort: "low" })
    expect(opus.codes).toContain("thinking-not-disabled")
    expect(send("claude-fable-5-1", false).body.thinking).toEqual({ type: "adaptive" })
    expect(send("claude-sonnet-4-6", false).body.thinking).toEqual({ type: "disabled" })
  })

  it("passes the efforts an always-on model takes", () => {
    expect(send("claude-opus-5-5", { effort: "xhigh" }).body.output_config).toEqual({ effort: "xhigh" })
    expect(send("claude-fable-5-1", { effort: "minimal" }).body.output_config).toEqual({ effort: "low" })
  })
})
