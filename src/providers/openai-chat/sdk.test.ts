/**
 * The official `openai` SDK reads what the Chat format module writes, served from a real local HTTP server:
 * the server decodes the SDK's request with `decodeRequest` and answers with the stream encoder, the whole-answer
 * encoder or the error encoder.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import OpenAI from "openai"
import type { ChatCompletionChunk } from "openai/resources/chat/completions"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { deepseekFormat } from "../deepseek/index.js"
import type { StreamEvent } from "../stream.js"
import type { DecodedRequest, ErrorInput, WireFormatServer } from "../types.js"
import { openAIChatFormat } from "./index.js"

const ANSWER: StreamEvent[] = [
  { type: "start" },
  { type: "thinking", delta: "The user wants " },
  { type: "thinking", delta: "a file read." },
  { type: "text", delta: "Reading " },
  { type: "text", delta: "it now." },
  { type: "tool_call_start", id: "call_a", name: "read_file" },
  { type: "tool_call_delta", id: "call_a", argsDelta: '{"path":' },
  { type: "tool_call_delta", id: "call_a", argsDelta: '"src/a.ts"}' },
  { type: "tool_call_end", id: "call_a", input: { path: "src/a.ts" } },
  { type: "tool_call_start", id: "call_b", name: "list_files" },
  { type: "tool_call_delta", id: "call_b", argsDelta: '{"dir":"src"}' },
  { type: "tool_call_end", id: "call_b", input: { dir: "src" } },
  { type: "usage", input: 120, output: 45, cacheRead: 1000, cacheWrite: 0, reasoning: 10 },
  { type: "stop", reason: "tool_use" },
]

/** What the fake upstream does with the next request: answer, answer with other events, or fail with an error. */
let next: { error?: ErrorInput; events?: StreamEvent[] } = {}
const seen: DecodedRequest[] = []
let server: Server
let baseURL: string

function moduleFor(model: string): WireFormatServer {
  return model.startsWith("deepseek") ? deepseekFormat : openAIChatFormat
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = ""
    req.on("data", (chunk: Buffer) => {
      raw += chunk.toString("utf8")
    })
    req.on("end", () => {
      const body = JSON.parse(raw) as Record<string, unknown>
      const module = moduleFor(String(body.model))
      const request = module.decodeRequest(body)
      seen.push(request)
      if (next.error) {
        const answer = module.encodeError(next.error)
        next = {}
        res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers })
        res.end(JSON.stringify(answer.body))
        return
      }
      const options = { model: request.model, id: "chatcmpl-sdk", created: 1_700_000_000 }
      const events = next.events ?? ANSWER
      next = {}
      if (request.options.stream) {
        const encoder = module.createStreamEncoder({ ...options, includeUsage: request.options.compat?.streamUsage })
        res.writeHead(200, { "content-type": "text/event-stream" })
        for (const event of events) res.write(encoder.push(event))
        res.end(encoder.end())
      } else {
        res.writeHead(200, { "content-type": "application/json" })
        res.end(JSON.stringify(module.encodeResponse(events, options)))
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
})

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve))
})

const client = () => new OpenAI({ apiKey: "test-key", baseURL, maxRetries: 0 })
const tools = [
  { type: "function" as const, function: { name: "read_file", parameters: { type: "object", properties: {} } } },
]
const expectedCalls = [
  { id: "call_a", type: "function", function: { name: "read_file", arguments: '{"path":"src/a.ts"}' } },
  { id: "call_b", type: "function", function: { name: "list_files", arguments: '{"dir":"src"}' } },
]

describe("the official openai SDK reads the Chat encoders' answers", () => {
  it("assembles the `.stream()` helper's final completion: text, both tool calls, finish reason, usage", async () => {
    const completion = await client()
      .chat.completions.stream({
        model: "gpt-4.1",
        tools,
        stream_options: { include_usage: true },
        messages: [{ role: "user", content: "Read a.ts" }],
      })
      .finalChatCompletion()
    expect(seen.at(-1)!.prompt.tools.map((t) => t.name)).toEqual(["read_file"])
    const choice = completion.choices[0]!
    expect(choice.message.content).toBe("Reading it now.")
    expect(choice.message.tool_calls).toEqual(expectedCalls)
    expect(choice.finish_reason).toBe("tool_calls")
    expect(completion.usage).toMatchObject({
      prompt_tokens: 1120,
      completion_tokens: 45,
      total_tokens: 1165,
      prompt_tokens_details: { cached_tokens: 1000 },
      completion_tokens_details: { reasoning_tokens: 10 },
    })
  })

  it("streams chunks through `create({stream: true})`: role first, reasoning, usage only when asked, then the end", async () => {
    const read = async (include: boolean) => {
      const chunks: ChatCompletionChunk[] = []
      const stream = await client().chat.completions.create({
        model: "gpt-4.1",
        stream: true,
        ...(include ? { stream_options: { include_usage: true } } : {}),
        messages: [{ role: "user", content: "x" }],
      })
      for await (const chunk of stream) chunks.push(chunk)
      return chunks
    }
    const plain = await read(false)
    expect(plain[0]!.choices[0]!.delta).toEqual({ role: "assistant", content: "", refusal: null })
    expect(plain.some((c) => c.usage)).toBe(false)
    const reasoning = plain.map((c) => (c.choices[0]?.delta as { reasoning_content?: string })?.reasoning_content ?? "")
    expect(reasoning.join("")).toBe("The user wants a file read.")
    const withUsage = await read(true)
    expect(withUsage.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 1120 } })
    expect(withUsage.at(-2)!.choices[0]!.finish_reason).toBe("tool_calls")
  })

  it("reads the whole answer of a request made without streaming", async () => {
    const completion = await client().chat.completions.create({
      model: "gpt-4.1",
      messages: [{ role: "user", content: "x" }],
    })
    expect(seen.at(-1)!.options.stream).toBe(false)
    expect(completion.object).toBe("chat.completion")
    expect(completion.choices[0]!.message.content).toBe("Reading it now.")
    expect(completion.choices[0]!.message.tool_calls).toEqual(expectedCalls)
    expect(completion.usage?.completion_tokens).toBe(45)
  })

  it("reads DeepSeek's flavour: reasoning_content deltas and the cache hit and miss counts on the finishing chunk", async () => {
    const chunks: ChatCompletionChunk[] = []
    const stream = await client().chat.completions.create({
      model: "deepseek-v4-pro",
      stream: true,
      messages: [{ role: "user", content: "x" }],
    })
    for await (const chunk of stream) chunks.push(chunk)
    const reasoning = chunks.map(
      (c) => (c.choices[0]?.delta as { reasoning_content?: string })?.reasoning_content ?? "",
    )
    expect(reasoning.join("")).toBe("The user wants a file read.")
    const last = chunks.at(-1)!
    expect(last.choices[0]!.finish_reason).toBe("tool_calls")
    expect(last.usage).toMatchObject({ prompt_cache_hit_tokens: 1000, prompt_cache_miss_tokens: 120 })
  })

  it("raises the SDK's own errors: a rate limit with its wait, and an overflow with context_length_exceeded", async () => {
    next = { error: { kind: "rate-limit", message: "Rate limit reached for requests", retryAfterMs: 2500 } }
    const limited = await client()
      .chat.completions.create({ model: "gpt-4.1", messages: [{ role: "user", content: "x" }] })
      .catch((e: unknown) => e)
    expect(limited).toBeInstanceOf(OpenAI.RateLimitError)
    expect((limited as InstanceType<typeof OpenAI.RateLimitError>).headers.get("retry-after")).toBe("3")
    next = { error: { kind: "context-overflow", message: "prompt is too long: 213462 tokens > 200000 maximum" } }
    const overflow = await client()
      .chat.completions.create({ model: "gpt-4.1", messages: [{ role: "user", content: "x" }] })
      .catch((e: unknown) => e)
    expect(overflow).toBeInstanceOf(OpenAI.BadRequestError)
    expect(overflow).toMatchObject({ status: 400, code: "context_length_exceeded", param: "messages" })
    expect((overflow as Error).message).toContain(
      "This model's maximum context length is 200000 tokens. However, your messages resulted in 213462 tokens.",
    )
  })

  it("raises an error written inside a stream as an APIError while iterating", async () => {
    const failing: StreamEvent[] = [
      { type: "start" },
      { type: "text", delta: "Hal" },
      { type: "error", kind: "server", message: "upstream reset" },
    ]
    next = { events: failing }
    const stream = await client().chat.completions.create({
      model: "gpt-4.1",
      stream: true,
      messages: [{ role: "user", content: "x" }],
    })
    const got: string[] = []
    const error = await (async () => {
      for await (const chunk of stream) got.push(chunk.choices[0]?.delta.content ?? "")
    })().catch((e: unknown) => e)
    expect(got.join("")).toBe("Hal")
    expect(error).toBeInstanceOf(OpenAI.APIError)
    expect((error as Error).message).toContain("upstream reset")
  })
})
