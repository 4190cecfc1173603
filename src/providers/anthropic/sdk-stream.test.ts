import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import Anthropic from "@anthropic-ai/sdk"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { StreamEvent } from "../stream.js"
import type { DecodedRequest, ErrorInput } from "../types.js"
import { anthropicFormat } from "./index.js"

/**
 * The official SDK reads what the module writes, from a real local HTTP server: the server decodes each
 * request with `decodeRequest` and answers with the stream encoder's bytes, the whole-answer body, or an
 * error answer, chosen by the user text.
 */

const ANSWER: StreamEvent[] = [
  { type: "start", id: "msg_upstream", model: "upstream-model" },
  { type: "usage", input: 120, output: 1, cacheRead: 1000, cacheWrite: 200 },
  { type: "thinking", delta: "The test fails ", index: 0 },
  { type: "thinking", delta: "on subtraction.", index: 0, signature: "c2lnbmF0dXJl" },
  { type: "text", delta: "Reading the ", index: 1 },
  { type: "text", delta: "file — ü 👋.", index: 1 },
  { type: "tool_call_start", id: "toolu_1", name: "read_file" },
  { type: "tool_call_delta", id: "toolu_1", argsDelta: '{"path":' },
  { type: "tool_call_delta", id: "toolu_1", argsDelta: '"src/a.ts"}' },
  { type: "tool_call_end", id: "toolu_1", input: { path: "src/a.ts" } },
  { type: "tool_call_start", id: "toolu_2", name: "bash" },
  { type: "tool_call_end", id: "toolu_2", input: { command: "npm test" } },
  { type: "usage", input: 120, output: 45, cacheRead: 1000, cacheWrite: 200 },
  { type: "stop", reason: "tool_use" },
]

const ERRORS: Record<string, ErrorInput> = {
  overloaded: { kind: "overloaded", message: "Overloaded" },
  "rate-limit": { kind: "rate-limit", message: "Too many requests", retryAfterMs: 2500 },
  overflow: {
    kind: "context-overflow",
    message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 130412 tokens.",
  },
}

/** A call whose arguments a model wrote as raw text (a decoder's warning, the call ended with `{}`). */
const RAW_ARGUMENTS: StreamEvent[] = [
  { type: "start", id: "upstream" },
  { type: "tool_call_start", id: "toolu_raw", name: "bash" },
  { type: "tool_call_delta", id: "toolu_raw", argsDelta: "ls -la" },
  { type: "tool_call_delta", id: "toolu_raw", argsDelta: " src" },
  { type: "error", kind: "invalid-arguments", message: "not JSON", raw: "ls -la src", toolCallId: "toolu_raw" },
  { type: "tool_call_end", id: "toolu_raw", input: {} },
  { type: "stop", reason: "tool_use" },
]

let server: Server
let baseURL: string
const seen: DecodedRequest[] = []

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = ""
    req.on("data", (c: Buffer) => {
      raw += c.toString("utf8")
    })
    req.on("end", () => {
      const decoded = anthropicFormat.decodeRequest(JSON.parse(raw))
      seen.push(decoded)
      const said = decoded.messages.at(-1)?.content.find((b) => b.type === "text")
      const text = said?.type === "text" ? said.text : ""
      const error = ERRORS[text]
      if (error) {
        const answer = anthropicFormat.encodeError(error)
        res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers })
        res.end(JSON.stringify(answer.body))
        return
      }
      const options = { model: decoded.model, id: "msg_gateway_1" }
      const answer = text === "raw arguments" ? RAW_ARGUMENTS : ANSWER
      if (!decoded.options.stream) {
        res.writeHead(200, { "content-type": "application/json" })
        res.end(JSON.stringify(anthropicFormat.encodeResponse(answer, options)))
        return
      }
      const events: StreamEvent[] =
        text === "fail mid-stream"
          ? [...ANSWER.slice(0, 5), { type: "error", kind: "server", message: "overloaded_error: Overloaded" }]
          : answer
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
      const encoder = anthropicFormat.createStreamEncoder(options)
      // One write per event, as a gateway relays them.
      for (const event of events) {
        const out = encoder.push(event)
        if (out !== "") res.write(out)
      }
      res.end(encoder.end())
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve))
})

const client = () => new Anthropic({ apiKey: "test-key", baseURL, maxRetries: 0 })
const params = (text: string) => ({
  model: "claude-sonnet-4-6",
  max_tokens: 2048,
  thinking: { type: "enabled" as const, budget_tokens: 1024 },
  tools: [
    { name: "read_file", description: "Read a file", input_schema: { type: "object" as const, properties: {} } },
    { name: "bash", description: "Run a command", input_schema: { type: "object" as const, properties: {} } },
  ],
  messages: [{ role: "user" as const, content: text }],
})

const EXPECTED_CONTENT = [
  { type: "thinking", thinking: "The test fails on subtraction.", signature: "c2lnbmF0dXJl" },
  { type: "text", text: "Reading the file — ü 👋." },
  { type: "tool_use", id: "toolu_1", name: "read_file", input: { path: "src/a.ts" } },
  { type: "tool_use", id: "toolu_2", name: "bash", input: { command: "npm test" } },
]

describe("the official Anthropic SDK reads the encoders' answers", () => {
  it("assembles the streamed answer (messages.stream → finalMessage)", async () => {
    const message = await client().messages.stream(params("go")).finalMessage()
    expect(message.id).toBe("msg_gateway_1")
    expect(message.model).toBe("claude-sonnet-4-6")
    expect(message.content).toEqual(EXPECTED_CONTENT)
    expect(message.stop_reason).toBe("tool_use")
    expect(message.usage).toMatchObject({
      input_tokens: 120,
      output_tokens: 45,
      cache_read_input_tokens: 1000,
      cache_creation_input_tokens: 200,
    })
    expect(seen.at(-1)).toMatchObject({ options: { stream: true, thinking: { budgetTokens: 1024 } }, unmodeled: [] })
  })

  it("serves the beta client, reading its context management", async () => {
    const message = await client()
      .beta.messages.stream({
        ...params("go"),
        betas: ["context-management-2025-06-27"],
        context_management: { edits: [{ type: "clear_thinking_20251015", keep: "all" }] },
      })
      .finalMessage()
    expect(message.content).toEqual(EXPECTED_CONTENT)
    expect(seen.at(-1)!.unmodeled).toEqual([])
    expect(seen.at(-1)!.options.contextManagement).toEqual({ clearThinking: { keep: "all" } })
  })

  it("streams the raw events in Anthropic's order (create with stream: true)", async () => {
    const stream = await client().messages.create({ ...params("go"), stream: true })
    const types: string[] = []
    for await (const event of stream) types.push(event.type)
    expect(types[0]).toBe("message_start")
    expect(types.slice(-2)).toEqual(["message_delta", "message_stop"])
    expect(types.filter((t) => t === "content_block_start")).toHaveLength(4)
  })

  it("reads the whole answer of a request made without streaming", async () => {
    const message = await client().messages.create(params("go"))
    expect(message.content).toEqual(EXPECTED_CONTENT)
    expect(message.usage.output_tokens).toBe(45)
    expect(message.stop_reason).toBe("tool_use")
  })

  it("throws the API's errors: overloaded as 529, a rate limit with retry-after, an overflow in Anthropic's words", async () => {
    const overloaded = await client()
      .messages.create(params("overloaded"))
      .catch((e: unknown) => e)
    expect(overloaded).toBeInstanceOf(Anthropic.InternalServerError)
    expect(overloaded).toMatchObject({ status: 529, error: { type: "error", error: { type: "overloaded_error" } } })

    const limited = await client()
      .messages.create(params("rate-limit"))
      .catch((e: unknown) => e)
    expect(limited).toBeInstanceOf(Anthropic.RateLimitError)
    expect((limited as InstanceType<typeof Anthropic.RateLimitError>).headers?.get("retry-after")).toBe("3")

    const overflow = await client()
      .messages.create(params("overflow"))
      .catch((e: unknown) => e)
    expect(overflow).toBeInstanceOf(Anthropic.BadRequestError)
    expect((overflow as Error).message).toContain("prompt is too long: 130412 tokens > 128000 maximum")
  })

  it("throws an error event that arrives mid-stream", async () => {
    const failed = await client()
      .messages.stream(params("fail mid-stream"))
      .finalMessage()
      .catch((e: unknown) => e)
    expect(failed).toBeInstanceOf(Anthropic.APIError)
    expect((failed as Error).message).toContain("overloaded_error")
  })

  it("reads a call whose arguments were not JSON as its input, streamed and whole alike (the SDK refuses raw text)", async () => {
    const streamed = await client().messages.stream(params("raw arguments")).finalMessage()
    const whole = await client().messages.create(params("raw arguments"))
    const use = { type: "tool_use", id: "toolu_raw", name: "bash", input: {} }
    expect([streamed.content, whole.content]).toEqual([[use], [use]])
  })
})
