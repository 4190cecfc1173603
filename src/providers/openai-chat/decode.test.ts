import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { Accumulator } from "../accumulate.js"
import { decodePayloadLines, StreamDecoder } from "../decode.js"
import type { StreamEvent } from "../stream.js"
import { chatResponseEvents, chatUsage } from "./decode.js"

const recorded = new URL("../../../test/fixtures/streams/openai-chat/", import.meta.url)
const handWritten = new URL("../../../test/fixtures/providers/streams/", import.meta.url)

function decodeSse(bytes: Uint8Array) {
  const decoder = new StreamDecoder("openai-chat")
  const events: StreamEvent[] = []
  decoder.feed(bytes, events)
  decoder.end(events)
  return { events, stats: decoder.stats }
}

function assemble(events: StreamEvent[]) {
  const acc = new Accumulator({ ts: 7 })
  for (const e of events) acc.push(e)
  return acc.finish()[0]!
}

describe("OpenAI Chat Completions decoder", () => {
  it("joins content deltas and takes usage from the last chunk", () => {
    const text = readFileSync(new URL("openai-text.chunks.txt", recorded), "utf8")
    const { events } = decodePayloadLines("openai-chat", text)
    const response = assemble(events)
    const expected = text
      .split("\n")
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { choices: { delta?: { content?: string } }[] }).choices[0]?.delta?.content ?? "")
      .join("")
    expect(response.message.content).toEqual([{ type: "text", text: expected }])
    expect(response.usage).toEqual({ input: 16, output: 300, cacheRead: 0, cacheWrite: 0 })
    expect(response.responseId).toBe("chatcmpl-D8Z5oo6uDh67AD85p73ksdT1KxhE0")
    expect(response.model).toBe("gpt-4.1-nano-2025-04-14")
  })

  it("reads xAI reasoning_content as thinking and counts its reasoning tokens on top of completion tokens", () => {
    const { events } = decodePayloadLines(
      "openai-chat",
      readFileSync(new URL("xai-tool-call.chunks.txt", recorded), "utf8"),
    )
    const response = assemble(events)
    expect(response.message.content.map((b) => b.type)).toEqual(["thinking", "tool_use"])
    expect(response.message.content[1]).toEqual({
      type: "tool_use",
      id: "call_79382389",
      name: "weather",
      input: { location: "San Francisco" },
    })
    // total 560 = prompt 307 + completion 26 + reasoning 227: xAI reports reasoning outside completion_tokens.
    expect(response.usage).toEqual({ input: 1, output: 253, cacheRead: 306, cacheWrite: 0, reasoning: 227 })
    expect(response.stopReason).toBe("tool_use")
  })

  it("tells calls apart by id when a server sends them all at index 0, and needs no [DONE]", () => {
    const { events, stats } = decodeSse(readFileSync(new URL("openai-chat-tool-calls.sse", handWritten)))
    expect(stats.comments).toBe(1)
    const response = assemble(events)
    expect(response.message.content).toEqual([
      { type: "thinking", text: "Two files to read.", model: "qwen3-coder" },
      { type: "tool_use", id: "call_a", name: "read_file", input: { path: "a.ts" } },
      { type: "tool_use", id: "call_b", name: "read_file", input: { path: "b.ts" } },
    ])
    // finish_reason "stop" with tool calls still means the model wants them run.
    expect(response.stopReason).toBe("tool_use")
    expect(response.rawStopReason).toBe("stop")
    expect(response.usage).toEqual({ input: 20, output: 30, cacheRead: 100, cacheWrite: 0 })
    expect(response.complete).toBe(true)
  })

  it("reports an error payload mid-stream and keeps the partial text", () => {
    const { events } = decodeSse(readFileSync(new URL("openai-chat-error-mid-stream.sse", handWritten)))
    const response = assemble(events)
    expect(response.errors).toEqual([
      {
        type: "error",
        kind: "server",
        message: "server_error: The server had an error while processing your request. Sorry about that!",
      },
    ])
    expect(response.message.content).toEqual([{ type: "text", text: "Partial" }])
    expect(response.stopReason).toBe("error")
  })

  it("reports a body cut off before the finish reason as truncated, with the cut-off call", () => {
    const lines = [
      '{"id":"c1","choices":[{"index":0,"delta":{"content":"Hi"}}]}',
      '{"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","function":{"name":"read_file","arguments":"{\\"pa"}}]}}]}',
    ]
    const { events } = decodePayloadLines("openai-chat", lines.join("\n"))
    expect(events.filter((e) => e.type === "error").map((e) => (e as { kind?: string }).kind)).toEqual([
      "partial-call",
      "truncated",
    ])
    const response = assemble(events)
    expect(response.message.content).toEqual([{ type: "text", text: "Hi" }])
  })

  it("restarts at a new completion spliced in (a new id opening with the role alone), and only then", () => {
    const lines = readFileSync(new URL("openai-text.chunks.txt", recorded), "utf8").split("\n").filter(Boolean)
    const whole = assemble(decodePayloadLines("openai-chat", lines.join("\n")).events)
    const again = lines.map((l) => l.replaceAll('"id":"chatcmpl-', '"id":"chatcmpl-retry-'))
    const { events, stats } = decodePayloadLines("openai-chat", [...lines.slice(0, 12), ...again].join("\n"))
    expect(stats.restarts).toBe(1)
    expect(events.filter((e) => e.type === "start")).toHaveLength(2)
    const spliced = assemble(events)
    expect([spliced.message.content, spliced.complete]).toEqual([whole.message.content, true])
    // Servers that repeat the role on every chunk, or change the id on every chunk, are not restarting.
    const chunk = (id: string, delta: Record<string, unknown>, finish: string | null = null) =>
      JSON.stringify({ id, object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] })
    const chatty = [
      chunk("a", { role: "assistant", content: "" }),
      chunk("b", { role: "assistant", content: "Hel" }),
      chunk("c", { role: "assistant", content: "lo" }),
      chunk("d", {}, "stop"),
    ]
    const read = decodePayloadLines("openai-chat", chatty.join("\n"))
    expect([read.stats.restarts, assemble(read.events).message.content]).toEqual([0, [{ type: "text", text: "Hello" }]])
  })

  it("treats refusals as text with a refusal stop", () => {
    const lines = [
      '{"id":"c2","choices":[{"index":0,"delta":{"refusal":"I can\'t help with that."}}]}',
      '{"id":"c2","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}',
    ]
    const response = assemble(decodePayloadLines("openai-chat", lines.join("\n")).events)
    expect(response.stopReason).toBe("refusal")
    expect(response.message.content).toEqual([{ type: "text", text: "I can't help with that." }])
  })

  it("decodes a non-streamed body", () => {
    const body = JSON.parse(readFileSync(new URL("openai-text.json", recorded), "utf8"))
    const response = assemble(chatResponseEvents(body))
    expect(response.message.content).toEqual([{ type: "text", text: body.choices[0].message.content }])
    expect(response.usage).toEqual({ input: 16, output: 363, cacheRead: 0, cacheWrite: 0 })
  })

  it("normalizes usage so input excludes cached and cache-written tokens", () => {
    expect(
      chatUsage({
        prompt_tokens: 1000,
        completion_tokens: 50,
        prompt_tokens_details: { cached_tokens: 800, cache_write_tokens: 100 },
      }),
    ).toEqual({ input: 100, output: 50, cacheRead: 800, cacheWrite: 100 })
    expect(
      chatUsage({
        prompt_tokens: 10,
        completion_tokens: 5,
        total_tokens: 15,
        completion_tokens_details: { reasoning_tokens: 4 },
      }),
    ).toEqual({ input: 10, output: 5, cacheRead: 0, cacheWrite: 0, reasoning: 4 })
  })

  it("follows calls by id when a server leaves out the index", () => {
    const lines = [
      '{"id":"c3","choices":[{"index":0,"delta":{"tool_calls":[{"id":"call_x","function":{"name":"read_file","arguments":"{\\"path\\":"}}]}}]}',
      '{"id":"c3","choices":[{"index":0,"delta":{"tool_calls":[{"function":{"arguments":"\\"x\\"}"}}]}}]}',
      '{"id":"c3","choices":[{"index":0,"delta":{"tool_calls":[{"id":"call_y","function":{"name":"read_file","arguments":"{}"}}]}}]}',
      '{"id":"c3","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}',
    ]
    const response = assemble(decodePayloadLines("openai-chat", lines.join("\n")).events)
    expect(response.message.content).toEqual([
      { type: "tool_use", id: "call_x", name: "read_file", input: { path: "x" } },
      { type: "tool_use", id: "call_y", name: "read_file", input: {} },
    ])
  })

  it("keeps an error payload's code and the wait its message names", () => {
    const text = readFileSync(new URL("openai-text.chunks.txt", recorded), "utf8").split("\n").slice(0, 3)
    const error = {
      error: {
        message: "Rate limit reached for gpt-4.1-nano. Please try again in 20ms.",
        type: "requests",
        code: "rate_limit_exceeded",
      },
    }
    const response = assemble(decodePayloadLines("openai-chat", [...text, JSON.stringify(error)].join("\n")).events)
    expect(response.errors).toEqual([
      {
        type: "error",
        kind: "rate-limit",
        message: "requests rate_limit_exceeded: Rate limit reached for gpt-4.1-nano. Please try again in 20ms.",
        retryAfterMs: 20,
      },
    ])
    expect(response.stopReason).toBe("error")
  })
})
