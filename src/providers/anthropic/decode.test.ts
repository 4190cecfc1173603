import { readFileSync } from "node:fs"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { Accumulator } from "../accumulate.js"
import { decodePayloadLines, StreamDecoder } from "../decode.js"
import type { StreamEvent } from "../stream.js"
import { AnthropicDecoder, anthropicResponseEvents } from "./decode.js"

const recorded = new URL("../../../test/fixtures/streams/anthropic/", import.meta.url)
const handWritten = new URL("../../../test/fixtures/providers/streams/", import.meta.url)

function decodeFile(name: string) {
  const decoder = new StreamDecoder("anthropic")
  const events: StreamEvent[] = []
  decoder.feed(readFileSync(new URL(name, handWritten)), events)
  decoder.end(events)
  return { events, stats: decoder.stats }
}

function assemble(events: StreamEvent[], model?: string) {
  const acc = new Accumulator({ ts: 42, model })
  for (const e of events) acc.push(e)
  return acc.finish()
}

describe("Anthropic decoder", () => {
  it("handles CRLF, comments, pings, unknown events, redacted thinking and UTF-8", () => {
    const { events, stats } = decodeFile("anthropic-crlf-redacted.sse")
    expect(stats).toMatchObject({ comments: 2, pings: 1, unknown: { future_event: 1 }, malformed: 0 })
    const [response] = assemble(events, "claude-sonnet-4-5")
    expect(response!.message.content).toEqual([
      {
        type: "redacted_thinking",
        data: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj",
        model: "claude-sonnet-4-5",
      },
      { type: "text", text: "Grüße 👋 — 你好. Reading the file now." },
      { type: "tool_use", id: "toolu_hand_1", name: "read_file", input: { path: "src/ünï.ts", start_line: 3 } },
    ])
    // message_delta gave only output_tokens: input and cache figures stay those of message_start.
    expect(response!.usage).toEqual({ input: 25, output: 41, cacheRead: 1000, cacheWrite: 200 })
    expect(response!.stopReason).toBe("tool_use")
    expect(response!.message.id).toBe("msg_hand_1")
  })

  it("streams tool-call arguments as deltas and parses them once at the end", () => {
    const { events } = decodeFile("anthropic-crlf-redacted.sse")
    const calls = events.filter((e) => e.type.startsWith("tool_call"))
    expect(calls).toEqual([
      { type: "tool_call_start", id: "toolu_hand_1", name: "read_file" },
      { type: "tool_call_delta", id: "toolu_hand_1", argsDelta: '{"path": "src/ünï.ts"' },
      { type: "tool_call_delta", id: "toolu_hand_1", argsDelta: ', "start_line": 3}' },
      { type: "tool_call_end", id: "toolu_hand_1", input: { path: "src/ünï.ts", start_line: 3 } },
    ])
  })

  it("reports an error event mid-stream, keeps the partial message and the cut-off call's text", () => {
    const { events } = decodeFile("anthropic-error-mid-stream.sse")
    const errors = events.filter((e) => e.type === "error")
    expect(errors).toEqual([
      { type: "error", kind: "server", message: "overloaded_error: Overloaded" },
      {
        type: "error",
        kind: "partial-call",
        message: "tool call toolu_hand_2 (read_file) was cut off before it ended",
        raw: '{"path": "READ',
        toolCallId: "toolu_hand_2",
      },
    ])
    expect(events[events.length - 1]).toEqual({ type: "stop", reason: "error" })
    const [response] = assemble(events)
    expect(response!.message.content).toEqual([{ type: "text", text: "Let me look at" }])
    expect(response!.complete).toBe(false)
    expect(response!.usage.input).toBe(50)
  })

  it("turns invalid tool-call JSON into an error that keeps the raw text, and an empty input", () => {
    const { events } = decodeFile("anthropic-invalid-arguments.sse")
    const [response] = assemble(events)
    expect(response!.errors).toEqual([
      expect.objectContaining({
        kind: "invalid-arguments",
        toolCallId: "toolu_hand_3",
        raw: '{"path": "a.txt", "content": "unterminated}',
      }),
    ])
    expect(response!.message.content).toEqual([
      { type: "tool_use", id: "toolu_hand_3", name: "write_to_file", input: {} },
    ])
    expect(response!.stopReason).toBe("tool_use")
    expect(response!.complete).toBe(true)
  })

  it("ignores a duplicated message_start and counts it", () => {
    const { events, stats } = decodePayloadLines(
      "anthropic",
      readFileSync(new URL("duplicate-message-start.chunks.txt", recorded), "utf8"),
    )
    expect(stats.duplicateStarts).toBe(1)
    expect(events.filter((e) => e.type === "start")).toHaveLength(1)
    expect(assemble(events)[0]!.message.content).toEqual([{ type: "text", text: "Hello, World!" }])
  })

  it("restarts on a spliced message_start: the cut-off generation is reported, then dropped", () => {
    const { events, stats } = decodePayloadLines(
      "anthropic",
      readFileSync(new URL("spliced-message-start.chunks.txt", recorded), "utf8"),
    )
    expect(stats.restarts).toBe(1)
    expect(events.filter((e) => e.type === "start").map((e) => (e as { id?: string }).id)).toEqual([
      "msg_first",
      "msg_second",
    ])
    expect(events.filter((e) => e.type === "error")).toEqual([
      expect.objectContaining({ kind: "partial-call", toolCallId: "toolu_first", raw: '{"value":"Spark' }),
    ])
    const responses = assemble(events)
    expect(responses).toHaveLength(1)
    expect(responses[0]!.errors).toEqual([])
    expect(responses[0]!.counters.restarts).toBe(1)
    expect(responses[0]!.responseId).toBe("msg_second")
    const ids = responses[0]!.message.content.flatMap((b) => (b.type === "tool_use" ? [b.id] : []))
    expect(ids).toEqual(["toolu_second"])
  })

  it("ignores server-side tool blocks and their deltas", () => {
    const { events, stats } = decodePayloadLines(
      "anthropic",
      readFileSync(new URL("anthropic-code-execution-20260120-prompt-cache.1.chunks.txt", recorded), "utf8"),
    )
    expect(stats.ignored).toEqual({ server_tool_use: 2, bash_code_execution_tool_result: 2 })
    expect(events.some((e) => e.type.startsWith("tool_call"))).toBe(false)
    const [response] = assemble(events)
    expect(response!.usage).toEqual({ input: 6, output: 198, cacheRead: 6289, cacheWrite: 3337 })
  })

  it("maps stop reasons, keeping the provider's own and a refusal's explanation", () => {
    const { events } = decodePayloadLines(
      "anthropic",
      readFileSync(new URL("anthropic-refusal.chunks.txt", recorded), "utf8"),
    )
    expect(events[events.length - 1]).toEqual({
      type: "stop",
      reason: "refusal",
      raw: "refusal",
      message:
        "This request triggered restrictions on violative cyber content and was blocked under Anthropic's Usage Policy.",
    })
  })

  it("reports a stream that ends before message_stop as truncated", () => {
    const lines = readFileSync(new URL("anthropic-text.chunks.txt", recorded), "utf8").split("\n").slice(0, 5)
    const { events } = decodePayloadLines("anthropic", lines.join("\n"))
    expect(events.slice(-3)).toEqual([
      { type: "error", kind: "truncated", message: "the stream ended before message_stop" },
      { type: "usage", input: 12, output: 1, cacheRead: 0, cacheWrite: 0 },
      { type: "stop", reason: "error" },
    ])
    expect(assemble(events)[0]!.message.content).toEqual([{ type: "text", text: "Hello! I" }])
  })

  it("decodes a non-streamed Messages response the same way", () => {
    const body = {
      id: "msg_x",
      type: "message",
      role: "assistant",
      model: "claude-opus-4-1",
      content: [
        { type: "thinking", thinking: "Plan.", signature: "sig" },
        { type: "text", text: "Reading." },
        { type: "tool_use", id: "toolu_x", name: "read_file", input: { path: "a" } },
      ],
      stop_reason: "tool_use",
      usage: { input_tokens: 3, output_tokens: 4, cache_read_input_tokens: 5, cache_creation_input_tokens: 6 },
    }
    const [response] = assemble(anthropicResponseEvents(body))
    expect(response!.message.content).toEqual([
      { type: "thinking", text: "Plan.", signature: "sig", model: "claude-opus-4-1" },
      { type: "text", text: "Reading." },
      { type: "tool_use", id: "toolu_x", name: "read_file", input: { path: "a" } },
    ])
    expect(response!.usage).toEqual({ input: 3, output: 4, cacheRead: 5, cacheWrite: 6 })
    expect(response!.stopReason).toBe("tool_use")
  })

  it("reads hot delta events without JSON.parse and gets exactly what JSON.parse gets (property)", () => {
    const opened = () => {
      const decoder = new AnthropicDecoder()
      const sink: StreamEvent[] = []
      decoder.push({ type: "message_start", message: { id: "m", usage: {} } }, sink)
      decoder.push({ type: "content_block_start", index: 3, content_block: { type: "text", text: "" } }, sink)
      decoder.push({ type: "content_block_start", index: 4, content_block: { type: "thinking", thinking: "" } }, sink)
      decoder.push(
        { type: "content_block_start", index: 5, content_block: { type: "tool_use", id: "t", name: "n" } },
        sink,
      )
      return decoder
    }
    const kinds = [
      ["text_delta", "text", 3],
      ["thinking_delta", "thinking", 4],
      ["signature_delta", "signature", 4],
      ["input_json_delta", "partial_json", 5],
    ] as const
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), fc.constantFrom(...kinds), (value, [type, field, index]) => {
        const data = JSON.stringify({ type: "content_block_delta", index, delta: { type, [field]: value } })
        const fast = opened()
        const viaFast: StreamEvent[] = []
        expect(fast.pushData(data, viaFast)).toBe(true)
        const slow = opened()
        const viaParse: StreamEvent[] = []
        slow.push(JSON.parse(data), viaParse)
        expect(viaFast).toEqual(viaParse)
      }),
      { numRuns: 500 },
    )
  })

  it("leaves every other spelling of a delta to JSON.parse", () => {
    const decoder = new AnthropicDecoder()
    const out: StreamEvent[] = []
    for (const data of [
      '{"type":"content_block_delta","index":0,"delta":{"text":"p","type":"text_delta"}}',
      '{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "p"}}',
      '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a","extra":"b"}}',
      '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a\\"}}x',
      '{"type":"content_block_delta","index":,"delta":{"type":"text_delta","text":"a"}}',
      '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"raw\ttab"}}',
    ])
      expect(decoder.pushData(data, out), data).toBe(false)
    expect(out).toEqual([])
  })
})
