import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import fc from "fast-check"
import OpenAI from "openai"
import type { ResponseStreamEvent } from "openai/resources/responses/responses"
import { afterEach, describe, expect, it } from "vitest"
import { StreamDecoder } from "../decode.js"
import type { StreamErrorKind, StreamEvent } from "../stream.js"
import { openAIResponsesFormat } from "./index.js"
import { encodeResponsesResponse } from "./response-encode.js"
import { ResponsesStreamEncoder } from "./stream-encode.js"

const options = { model: "gpt-5", id: "resp_test", created: 1_767_225_600 }

/** Writes events with a fresh encoder: the whole text sent. */
function encode(events: readonly StreamEvent[], request?: Record<string, unknown>): string {
  const encoder = openAIResponsesFormat.createStreamEncoder({ ...options, request })
  return events.map((e) => encoder.push(e)).join("") + encoder.end()
}

/** Decodes bytes split at the given points with the format's own stream decoder. */
function decode(text: string, cuts: readonly number[] = []): StreamEvent[] {
  const bytes = new TextEncoder().encode(text)
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)
  const decoder = new StreamDecoder("openai-responses")
  const out: StreamEvent[] = []
  let from = 0
  for (const point of [...points, bytes.length]) {
    decoder.feed(bytes.subarray(from, point), out)
    from = point
  }
  decoder.end(out)
  return out
}

type Block =
  | { kind: "text"; text: string }
  | { kind: "thinking"; text: string; signature?: string; id?: string }
  | { kind: "call"; id: string; name: string; args: string; input: unknown }
  | { kind: "usage"; input: number; output: number; cacheRead: number; reasoning?: number }
  | { kind: "stop"; reason: string }
  | { kind: "error"; kind2: StreamErrorKind; retryAfterMs?: number }

/**
 * What the Responses wire carries of a list of events, as blocks: deltas of one block joined, the response id
 * and model, stop details and indexes dropped; a redacted block becomes encrypted reasoning; cache writes count as
 * input (OpenAI's usage has no field for them); every failure kind without an OpenAI code of its own is `server`.
 */
function blocks(events: readonly StreamEvent[]): Block[] {
  const out: Block[] = []
  let last: { type: string; index?: number } | undefined
  const calls = new Map<string, Extract<Block, { kind: "call" }>>()
  for (const e of events) {
    const prev = out.at(-1)
    if (e.type === "text") {
      if (prev?.kind === "text" && last?.type === "text" && last.index === e.index) prev.text += e.delta
      else out.push({ kind: "text", text: e.delta })
    } else if (e.type === "thinking") {
      const same = prev?.kind === "thinking" && last?.type === "thinking" && last.index === e.index
      const block = same ? prev : { kind: "thinking" as const, text: "" }
      if (!same) out.push(block)
      block.text += e.delta
      if (e.signature !== undefined) block.signature = e.signature
      if (e.id !== undefined) block.id = e.id
    } else if (e.type === "redacted_thinking") out.push({ kind: "thinking", text: "", signature: e.data })
    else if (e.type === "tool_call_start") {
      const call = { kind: "call" as const, id: e.id, name: e.name, args: "", input: undefined as unknown }
      calls.set(e.id, call)
      out.push(call)
    } else if (e.type === "tool_call_delta") calls.get(e.id)!.args += e.argsDelta
    else if (e.type === "tool_call_end") {
      const call = calls.get(e.id)!
      call.input = e.input
      if (call.args === "") call.args = JSON.stringify(e.input)
    } else if (e.type === "usage") {
      const usage: Block = { kind: "usage", input: e.input + e.cacheWrite, output: e.output, cacheRead: e.cacheRead }
      if (e.reasoning) usage.reasoning = e.reasoning
      out.push(usage)
    } else if (e.type === "stop") out.push({ kind: "stop", reason: e.reason })
    else if (e.type === "error") {
      const known = ["context-overflow", "rate-limit", "quota", "auth", "invalid-request", "server"]
      const error: Block = { kind: "error", kind2: known.includes(e.kind ?? "") ? e.kind! : "server" }
      if (e.retryAfterMs !== undefined) error.retryAfterMs = e.retryAfterMs
      out.push(error)
    }
    if (e.type !== "usage" && e.type !== "stop") last = e
  }
  return out
}

/** A reasoning id the encoder derived stands for "no id": the input had none. */
function withoutDerivedIds(actual: Block[], expected: Block[]): Block[] {
  return actual.map((b, i) => {
    const want = expected[i]
    if (b.kind === "thinking" && want?.kind === "thinking" && want.id === undefined) {
      const { id: _id, ...rest } = b
      return rest
    }
    return b
  })
}

const word = fc.string({ unit: fc.constantFrom("a", "b", " ", "é", "\n", '"', "😀"), minLength: 1, maxLength: 12 })
const block = fc.oneof(
  fc.record({ type: fc.constant("text" as const), pieces: fc.array(word, { minLength: 1, maxLength: 3 }) }),
  fc.record({
    type: fc.constant("thinking" as const),
    pieces: fc.array(word, { maxLength: 3 }),
    signature: fc.option(fc.constantFrom("gAAAA-enc", "sig+/="), { nil: undefined }),
    id: fc.option(fc.constantFrom("rs_abc", "rs_2"), { nil: undefined }),
  }),
  fc.record({ type: fc.constant("redacted" as const), data: fc.constantFrom("opaque-1", "opaque-2") }),
  fc.record({
    type: fc.constant("call" as const),
    input: fc.dictionary(fc.constantFrom("path", "cmd", "n"), fc.oneof(word, fc.integer())),
    split: fc.nat(3),
  }),
)
const ending = fc.oneof(
  fc.record({
    type: fc.constant("stop" as const),
    reason: fc.constantFrom("end" as const, "length" as const, "refusal" as const),
  }),
  fc.record({
    type: fc.constant("error" as const),
    kind: fc.constantFrom<StreamErrorKind>(
      "context-overflow",
      "rate-limit",
      "quota",
      "auth",
      "server",
      "truncated",
      "network",
    ),
    retryAfterMs: fc.option(fc.constantFrom(1500, 20_000), { nil: undefined }),
  }),
)
const usage = fc.option(
  fc.record({
    input: fc.nat(5000),
    output: fc.nat(900),
    cacheRead: fc.nat(5000),
    cacheWrite: fc.nat(50),
    reasoning: fc.nat(100),
  }),
  { nil: undefined },
)

/** Normalized events of one response, as a decoder of any format would emit them. */
const responseEvents = fc.tuple(fc.array(block, { maxLength: 5 }), usage, ending).map(([list, use, end]) => {
  const events: StreamEvent[] = [{ type: "start", id: "msg_upstream", model: "other" }]
  let calls = 0
  list.forEach((b, index) => {
    if (b.type === "text") for (const delta of b.pieces) events.push({ type: "text", delta, index })
    else if (b.type === "thinking") {
      const pieces = b.pieces.length > 0 ? b.pieces : [""]
      pieces.forEach((delta, i) => {
        const event: StreamEvent = { type: "thinking", delta, index }
        if (b.id) event.id = b.id
        if (i === pieces.length - 1 && b.signature) event.signature = b.signature
        events.push(event)
      })
    } else if (b.type === "redacted") events.push({ type: "redacted_thinking", data: b.data })
    else {
      const id = `call_${calls++}`
      const args = JSON.stringify(b.input)
      events.push({ type: "tool_call_start", id, name: "read_file" })
      const cut = Math.floor((args.length * b.split) / 4)
      for (const argsDelta of [args.slice(0, cut), args.slice(cut)].filter((s) => s !== ""))
        if (b.split > 0) events.push({ type: "tool_call_delta", id, argsDelta })
      events.push({ type: "tool_call_end", id, input: b.input })
    }
  })
  if (end.type === "error") {
    const error: StreamEvent = { type: "error", kind: end.kind, message: "the upstream failed" }
    if (end.retryAfterMs !== undefined) error.retryAfterMs = end.retryAfterMs
    events.push(error)
  }
  if (use) events.push({ type: "usage", ...use, reasoning: Math.min(use.reasoning, use.output) })
  const reason = end.type === "error" ? "error" : end.reason === "end" && calls > 0 ? "tool_use" : end.reason
  events.push({ type: "stop", reason })
  return events
})

/**
 * The blocks a client reads back: when the response failed, the item still being written at the error was never
 * closed, so a reasoning block that was not signed yet keeps only its streamed text (its id came with the close).
 */
function readBack(events: readonly StreamEvent[]): Block[] {
  const expected = blocks(events)
  const at = expected.findIndex((b) => b.kind === "error")
  const open = at > 0 ? expected[at - 1] : undefined
  if (open?.kind !== "thinking" || open.signature !== undefined) return expected
  const { id: _id, ...kept } = open
  return [...expected.slice(0, at - 1), ...(kept.text === "" ? [] : [kept]), ...expected.slice(at)]
}

describe("OpenAI Responses stream encoder", () => {
  it("decodes back to the events it was given, however the bytes are split", () => {
    fc.assert(
      fc.property(responseEvents, fc.array(fc.nat(4000), { maxLength: 8 }), (events, cuts) => {
        const expected = readBack(events)
        const actual = decode(encode(events), cuts)
        expect(actual[0]).toEqual({ type: "start", id: "resp_test", model: "gpt-5" })
        expect(withoutDerivedIds(blocks(actual), expected)).toEqual(expected)
        for (const e of actual) if (e.type === "error") expect(e.message).toMatch(/the upstream failed|context window/)
      }),
      { numRuns: 300 },
    )
  })

  it("closes only whole items: a failure at any point leaves the item being written open (property)", () => {
    const doneItems = (encoder: ResponsesStreamEncoder) =>
      new Map(
        encoder.payloads
          .filter((p) => p.type === "response.output_item.done")
          .map((p) => [p.output_index as number, p.item]),
      )
    const finished = responseEvents.filter((events) => events.at(-2)?.type !== "error")
    fc.assert(
      fc.property(finished, fc.nat(), (events, at) => {
        const whole = new ResponsesStreamEncoder(options)
        for (const e of events) whole.push(e)
        whole.end()
        // The same answer failing after `cut` of its events (never after its stop).
        const cut = 1 + (at % (events.length - 1))
        const failing = new ResponsesStreamEncoder(options)
        for (const e of events.slice(0, cut)) failing.push(e)
        failing.push({ type: "error", kind: "network", message: "the upstream connection failed mid-answer" })
        failing.push({ type: "stop", reason: "error" })
        failing.end()
        const closed = doneItems(failing)
        for (const [index, item] of closed) expect(item).toEqual(doneItems(whole).get(index))
        // Nothing follows the error but the failed response, which lists the unclosed items as incomplete.
        const types = failing.payloads.map((p) => p.type)
        expect(types.slice(types.indexOf("error"))).toEqual(["error", "response.failed"])
        const output = (failing.final?.output ?? []) as { status?: string }[]
        expect(output.filter((o) => o.status === "incomplete")).toHaveLength(output.length - closed.size)
      }),
      { numRuns: 300 },
    )
  })

  it("numbers every event in order and writes each as an SSE event named by its type", () => {
    const text = encode([
      { type: "start" },
      { type: "text", delta: "hi" },
      { type: "usage", input: 1, output: 1, cacheRead: 0, cacheWrite: 0 },
      { type: "stop", reason: "end" },
    ])
    const frames = text.split("\n\n").filter((f) => f !== "")
    const payloads = frames.map((f) => {
      const [event, data] = f.split("\n")
      const payload = JSON.parse(data!.slice("data: ".length)) as { type: string; sequence_number: number }
      expect(event).toBe(`event: ${payload.type}`)
      return payload
    })
    expect(payloads.map((p) => p.sequence_number)).toEqual(payloads.map((_, i) => i))
    expect(payloads.map((p) => p.type)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ])
  })

  it("writes a whole response object that the whole-body decoder reads as the same events", () => {
    fc.assert(
      fc.property(responseEvents, (events) => {
        const body = encodeResponsesResponse(events, options)
        const expected = blocks(events).filter((b) => b.kind !== "error")
        const actual = blocks(openAIResponsesFormat.responseEvents(body)).filter((b) => b.kind !== "error")
        expect(withoutDerivedIds(actual, expected)).toEqual(expected)
      }),
      { numRuns: 100 },
    )
  })

  it("ends a response whose events stopped without a stop as failed, its partial item left open", () => {
    const encoder = new ResponsesStreamEncoder(options)
    encoder.push({ type: "text", delta: "partial" })
    const ending = encoder.end()
    expect(ending).toContain("event: error")
    expect(ending).toContain("event: response.failed")
    expect(ending).not.toContain("response.output_item.done")
    expect(encoder.final?.output).toEqual([expect.objectContaining({ type: "message", status: "incomplete" })])
    const failing = new ResponsesStreamEncoder(options)
    failing.push({ type: "error", kind: "truncated", message: "cut" })
    expect(failing.end()).toContain('"status":"failed"')
    expect(failing.end()).toBe("")
  })
})

let server: Server | undefined
afterEach(async () => {
  await new Promise<void>((done) => (server ? server.close(() => done()) : done()))
  server = undefined
})

/** Serves `text` as the event stream of every POST /v1/responses, from a real local HTTP server. */
async function serve(text: string, status = 200, headers: Record<string, string> = {}): Promise<OpenAI> {
  server = createServer((req, res) => {
    req.resume()
    req.on("end", () => {
      res.writeHead(status, { "content-type": status === 200 ? "text/event-stream" : "application/json", ...headers })
      // Written in small pieces, so the client reassembles frames.
      for (let i = 0; i < text.length; i += 37) res.write(text.slice(i, i + 37))
      res.end()
    })
  })
  await new Promise<void>((done) => server!.listen(0, "127.0.0.1", done))
  const { port } = server.address() as AddressInfo
  return new OpenAI({ apiKey: "test-key", baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 0 })
}

const turn: StreamEvent[] = [
  { type: "start", id: "msg_01", model: "claude" },
  { type: "thinking", delta: "Read the file ", index: 0 },
  { type: "thinking", delta: "first.", index: 0, signature: "sig-1" },
  { type: "text", delta: "Let me ", index: 1 },
  { type: "text", delta: "look.", index: 1 },
  { type: "tool_call_start", id: "toolu_1", name: "read_file" },
  { type: "tool_call_delta", id: "toolu_1", argsDelta: '{"path":' },
  { type: "tool_call_delta", id: "toolu_1", argsDelta: '"a.ts"}' },
  { type: "tool_call_end", id: "toolu_1", input: { path: "a.ts" } },
  { type: "usage", input: 20, output: 30, cacheRead: 1000, cacheWrite: 0, reasoning: 12 },
  { type: "stop", reason: "tool_use" },
]

describe("OpenAI Responses stream encoder, read by the official openai SDK", () => {
  const request = {
    model: "gpt-5",
    instructions: "Be brief.",
    reasoning: { effort: "low" as const, summary: "auto" as const },
  }

  it("responses.create({stream: true}) yields every event in order", async () => {
    const openai = await serve(encode(turn, request))
    const events: ResponseStreamEvent[] = []
    for await (const e of await openai.responses.create({ ...request, input: "x", stream: true })) events.push(e)
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i))
    expect(events.at(-1)).toMatchObject({
      type: "response.completed",
      response: { id: "resp_test", status: "completed" },
    })
  })

  it("responses.stream() assembles the final response: reasoning, text, the call, usage", async () => {
    const openai = await serve(encode(turn, request))
    const response = await openai.responses.stream({ ...request, input: "x" }).finalResponse()
    expect(response.output.map((o) => o.type)).toEqual(["reasoning", "message", "function_call"])
    expect(response.output[0]).toMatchObject({
      summary: [{ type: "summary_text", text: "Read the file first." }],
      encrypted_content: "sig-1",
    })
    expect(response.output_text).toBe("Let me look.")
    expect(response.output[2]).toMatchObject({ call_id: "toolu_1", name: "read_file", arguments: '{"path":"a.ts"}' })
    expect(response.usage).toEqual({
      input_tokens: 1020,
      input_tokens_details: { cached_tokens: 1000 },
      output_tokens: 30,
      output_tokens_details: { reasoning_tokens: 12 },
      total_tokens: 1050,
    })
    expect(response.instructions).toBe("Be brief.")
  })

  it("an in-stream overflow reaches the SDK as an APIError with code context_length_exceeded", async () => {
    const failed: StreamEvent[] = [
      { type: "start" },
      { type: "error", kind: "context-overflow", message: "prompt is too long: 300000 tokens > 200000 maximum" },
      { type: "stop", reason: "error" },
    ]
    const openai = await serve(encode(failed))
    const run = async () => {
      for await (const _ of await openai.responses.create({ model: "gpt-5", input: "x", stream: true })) {
        // read to the error
      }
    }
    await expect(run()).rejects.toMatchObject({ code: "context_length_exceeded", type: "invalid_request_error" })
  })

  it("an error answer reaches the SDK with its status, code and retry-after", async () => {
    const error = openAIResponsesFormat.encodeError({ kind: "rate-limit", message: "Slow down.", retryAfterMs: 2500 })
    expect(error.headers).toEqual({ "retry-after": "3" })
    const openai = await serve(JSON.stringify(error.body), error.status, error.headers)
    await expect(openai.responses.create({ model: "gpt-5", input: "x" })).rejects.toMatchObject({
      status: 429,
      code: "rate_limit_exceeded",
      message: expect.stringContaining("Slow down."),
    })
  })
})

describe("a reasoning item whose id the events name only at its end", () => {
  it("keeps the id it was announced with, from output_item.added to output_item.done", () => {
    const text = encode([
      { type: "thinking", delta: "Read the file", index: 0 },
      { type: "thinking", delta: "", index: 0, id: "rs_upstream", signature: "enc" },
      { type: "stop", reason: "end" },
    ])
    const payloads = text
      .split("\n")
      .filter((l) => l.startsWith("data: ") && l !== "data: [DONE]")
      .map((l) => JSON.parse(l.slice(6)) as { type: string; item?: { id: string; encrypted_content?: string } })
    const added = payloads.find((p) => p.type === "response.output_item.added")!.item!
    const done = payloads.find((p) => p.type === "response.output_item.done")!.item!
    expect(done.id).toBe(added.id)
    expect(done.encrypted_content).toBe("enc")
  })
})
