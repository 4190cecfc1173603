/**
 * Tool searches on the Messages API's wire: a client's `server_tool_use` + `tool_search_tool_result` blocks and
 * `tool_reference` parts read as promptline's tool search block and references, and written back the same way to a
 * body that defers tools, in requests and in answers (streamed and whole).
 */
import { describe, expect, it } from "vitest"
import { resolveModel } from "../../models/resolve.js"
import type { StreamEvent } from "../stream.js"
import { AnthropicDecoder, anthropicResponseEvents } from "./decode.js"
import { encodeAnthropic } from "./encode.js"
import { decodeAnthropicRequest } from "./request-decode.js"
import { encodeAnthropicResponse } from "./response-encode.js"
import { AnthropicStreamWriter } from "./stream-encode.js"

const schema = { type: "object", properties: { title: { type: "string" } } }
const SEARCH_USE = {
  type: "server_tool_use",
  id: "srvtoolu_1",
  name: "tool_search_tool_bm25",
  input: { query: "issue" },
}
const SEARCH_RESULT = {
  type: "tool_search_tool_result",
  tool_use_id: "srvtoolu_1",
  content: {
    type: "tool_search_tool_search_result",
    tool_references: [{ type: "tool_reference", tool_name: "create_issue" }],
  },
}

const body = {
  model: "claude-sonnet-4-5",
  max_tokens: 1000,
  tools: [
    { type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25" },
    { name: "create_issue", description: "Creates an issue.", input_schema: schema, defer_loading: true },
    { name: "find", description: "Finds tools.", input_schema: schema },
  ],
  messages: [
    { role: "user", content: "Open an issue." },
    {
      role: "assistant",
      content: [
        { type: "text", text: "Searching." },
        SEARCH_USE,
        SEARCH_RESULT,
        { type: "tool_use", id: "toolu_1", name: "find", input: { title: "x" } },
      ],
    },
    {
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: "toolu_1",
          content: [
            { type: "text", text: "Found one:" },
            { type: "tool_reference", tool_name: "create_issue" },
          ],
        },
      ],
    },
  ],
}

describe("tool searches in Anthropic requests", () => {
  it("reads a tool search (call and result) as one block, and references as the result's references", () => {
    const decoded = decodeAnthropicRequest(body)
    expect(decoded.unmodeled).toEqual([])
    expect(decoded.messages[1]!.content).toEqual([
      { type: "text", text: "Searching." },
      {
        type: "tool_search",
        id: "srvtoolu_1",
        name: "tool_search_tool_bm25",
        input: { query: "issue" },
        found: ["create_issue"],
      },
      { type: "tool_use", id: "toolu_1", name: "find", input: { title: "x" } },
    ])
    expect(decoded.messages[2]!.content[0]).toMatchObject({
      content: [{ type: "text", text: "Found one:" }],
      references: ["create_issue"],
    })
  })

  it("writes them back as they came to a body that defers tools", () => {
    const decoded = decodeAnthropicRequest(body)
    const model = resolveModel("claude-sonnet-4-5").model
    const { body: out } = encodeAnthropic({ ...decoded, model, options: { ...decoded.options, cache: false } })
    expect(out.messages).toEqual(
      body.messages.map((m) =>
        typeof m.content === "string" ? { ...m, content: [{ type: "text", text: m.content }] } : m,
      ),
    )
  })

  it("a search whose result is an error reads and writes back as one", () => {
    const failed = { ...SEARCH_RESULT, content: { type: "tool_search_tool_result_error", error_code: "unavailable" } }
    const decoded = decodeAnthropicRequest({
      ...body,
      messages: [
        body.messages[0],
        { role: "assistant", content: [SEARCH_USE, failed] },
        { role: "user", content: "?" },
      ],
    })
    expect(decoded.messages[1]!.content).toEqual([
      {
        type: "tool_search",
        id: "srvtoolu_1",
        name: "tool_search_tool_bm25",
        input: { query: "issue" },
        found: [],
        error: "unavailable",
      },
    ])
    const model = resolveModel("claude-sonnet-4-5").model
    const { body: out } = encodeAnthropic({ ...decoded, model, options: { ...decoded.options, cache: false } })
    expect(out.messages[1]!.content).toEqual([SEARCH_USE, failed])
  })

  it("a call without its result is not a search: it stays unmodeled, as before", () => {
    const decoded = decodeAnthropicRequest({
      ...body,
      messages: [body.messages[0], { role: "assistant", content: [SEARCH_USE] }, { role: "user", content: "?" }],
    })
    expect(decoded.unmodeled).toEqual(["messages[1].content[0]"])
  })
})

describe("tool searches in Anthropic answers", () => {
  const events: StreamEvent[] = [
    { type: "start", id: "msg_1" },
    { type: "text", delta: "Searching." },
    {
      type: "tool_search",
      id: "srvtoolu_1",
      name: "tool_search_tool_bm25",
      input: { query: "issue" },
      found: ["create_issue"],
    },
    { type: "text", delta: "Found it." },
    { type: "tool_call_start", id: "toolu_1", name: "create_issue" },
    { type: "tool_call_end", id: "toolu_1", input: { title: "Crash" } },
    { type: "stop", reason: "tool_use" },
  ]

  it("streams the search as the API streams a server tool: the call with its input, then the result whole", () => {
    const writer = new AnthropicStreamWriter({ model: "m" })
    const payloads = events.flatMap((e) => writer.push(e))
    const blocks = payloads.filter((p) => p.type === "content_block_start").map((p) => p.content_block)
    expect(blocks).toEqual([
      { type: "text", text: "" },
      { type: "server_tool_use", id: "srvtoolu_1", name: "tool_search_tool_bm25", input: {} },
      SEARCH_RESULT,
      { type: "text", text: "" },
      { type: "tool_use", id: "toolu_1", name: "create_issue", input: {} },
    ])
    expect(payloads).toContainEqual({
      type: "content_block_delta",
      index: 1,
      delta: { type: "input_json_delta", partial_json: '{"query":"issue"}' },
    })
  })

  it("a whole answer holds the same blocks", () => {
    const answer = encodeAnthropicResponse(events, { model: "m" }) as { content: unknown[] }
    expect(answer.content).toEqual([
      { type: "text", text: "Searching." },
      SEARCH_USE,
      SEARCH_RESULT,
      { type: "text", text: "Found it." },
      { type: "tool_use", id: "toolu_1", name: "create_issue", input: { title: "Crash" } },
    ])
  })

  it("an Anthropic upstream's search reads back as the same event, streamed and whole", () => {
    const writer = new AnthropicStreamWriter({ model: "m" })
    const decoder = new AnthropicDecoder()
    const streamed: StreamEvent[] = []
    for (const payload of events.flatMap((e) => writer.push(e))) decoder.push(payload, streamed)
    decoder.end(streamed)
    const whole = anthropicResponseEvents(encodeAnthropicResponse(events, { model: "m" }))
    for (const decoded of [streamed, whole])
      expect(decoded.filter((e) => e.type === "tool_search")).toEqual([events[2]])
  })
})
