import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { StreamDecoder } from "../decode.js"
import type { StopReason, StreamErrorKind, StreamEvent } from "../stream.js"
import { anthropicResponseEvents } from "./decode.js"
import { encodeAnthropicResponse } from "./response-encode.js"
import { createAnthropicStreamEncoder } from "./stream-encode.js"

/**
 * decode(encodeStream(events)) = events, under any chunking of the bytes. The generated events are in the form
 * the Anthropic decoder itself emits, which is what the wire format can carry:
 * - `index` on text and thinking events is the block's position (the encoder numbers blocks in order);
 * - a thinking signature travels alone, on an event with an empty delta (Anthropic's `signature_delta`);
 * - empty argument pieces are not events (the API's opening empty `input_json_delta` is skipped by the reader),
 *   and a call's `input` is its arguments parsed;
 * - one usage event, right before the stop; the stop's `raw` is Anthropic's stop reason, and only a refusal
 *   keeps a `message` (as `stop_details.explanation`);
 * - an error is Anthropic's `error` event: its message starts with the Anthropic error type, its kind is what
 *   that type and message classify as, and the response then ends with the usage known at `message_start`
 *   (none was known yet: zeros) and an `error` stop.
 */

const MODEL = "claude-test-1"
const ID = "msg_test_1"
const text = fc.string({ maxLength: 12, unit: fc.constantFrom("a", "b", " ", "\n", '"', "\\", "é", "👋", "{", "}") })
const nonEmpty = text.filter((s) => s !== "")

type Piece =
  | { kind: "text"; deltas: string[] }
  | { kind: "thinking"; deltas: string[]; signature?: string }
  | { kind: "redacted"; data: string }
  | { kind: "tool"; name: string; input: Record<string, unknown>; cuts: number[] }

const piece: fc.Arbitrary<Piece> = fc.oneof(
  fc.record({ kind: fc.constant("text" as const), deltas: fc.array(text, { minLength: 1, maxLength: 4 }) }),
  fc.record({
    kind: fc.constant("thinking" as const),
    deltas: fc.array(text, { minLength: 1, maxLength: 4 }),
    signature: fc.option(fc.base64String({ minLength: 4, maxLength: 20 }), { nil: undefined }),
  }),
  fc.record({ kind: fc.constant("redacted" as const), data: fc.base64String({ minLength: 4, maxLength: 20 }) }),
  fc.record({
    kind: fc.constant("tool" as const),
    name: fc.constantFrom("read_file", "bash"),
    input: fc.dictionary(fc.stringMatching(/^[a-z]{1,5}$/), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
    cuts: fc.array(fc.nat(40), { maxLength: 3 }),
  }),
)

/** The ways a response ends: a stop reason (refusals with or without an explanation), or an error. */
const ending = fc.oneof(
  fc.record({
    kind: fc.constant("stop" as const),
    reason: fc.constantFrom<[StopReason, string]>(
      ["end", "end_turn"],
      ["end", "stop_sequence"],
      ["end", "pause_turn"],
      ["tool_use", "tool_use"],
      ["length", "max_tokens"],
      ["length", "model_context_window_exceeded"],
      ["refusal", "refusal"],
    ),
    message: fc.option(nonEmpty, { nil: undefined }),
    usage: fc.record({
      input: fc.nat(),
      output: fc.nat(),
      cacheRead: fc.nat(),
      cacheWrite: fc.nat(),
      reasoning: fc.nat(50),
    }),
  }),
  fc.record({
    kind: fc.constant("error" as const),
    error: fc.constantFrom<[StreamErrorKind, string]>(
      ["server", "overloaded_error: Overloaded"],
      ["server", "api_error: Internal server error"],
      ["rate-limit", "rate_limit_error: Number of requests has exceeded your rate limit"],
      ["context-overflow", "invalid_request_error: prompt is too long: 210000 tokens > 200000 maximum"],
      ["auth", "authentication_error: invalid x-api-key"],
      ["quota", "billing_error: This organization is out of credits"],
    ),
  }),
)

type Ending = typeof ending extends fc.Arbitrary<infer T> ? T : never

function eventsOf(pieces: Piece[], end: Ending): StreamEvent[] {
  const out: StreamEvent[] = []
  pieces.forEach((p, index) => {
    if (p.kind === "text") for (const delta of p.deltas) out.push({ type: "text", delta, index })
    else if (p.kind === "thinking") {
      for (const delta of p.deltas) out.push({ type: "thinking", delta, index })
      if (p.signature !== undefined) out.push({ type: "thinking", delta: "", signature: p.signature, index })
    } else if (p.kind === "redacted") out.push({ type: "redacted_thinking", data: p.data })
    else {
      const id = `toolu_${index}`
      const args = JSON.stringify(p.input)
      out.push({ type: "tool_call_start", id, name: p.name })
      const cuts = [...new Set([0, ...p.cuts.map((c) => c % (args.length + 1)), args.length])].sort((a, b) => a - b)
      for (let k = 1; k < cuts.length; k++)
        out.push({ type: "tool_call_delta", id, argsDelta: args.slice(cuts[k - 1], cuts[k]) })
      out.push({ type: "tool_call_end", id, input: JSON.parse(args) })
    }
  })
  const content = out.length > 0
  if (end.kind === "error") {
    const [kind, message] = end.error
    out.push({ type: "error", kind, message })
    out.push({ type: "usage", input: 0, output: 0, cacheRead: 0, cacheWrite: 0 })
    out.push({ type: "stop", reason: "error" })
    return content ? [{ type: "start", id: ID, model: MODEL }, ...out] : out
  }
  const { reasoning, ...usage } = end.usage
  out.push({ type: "usage", ...usage, ...(reasoning > 0 ? { reasoning } : {}) })
  const [reason, raw] = end.reason
  const stop: StreamEvent = { type: "stop", reason, raw }
  if (reason === "refusal" && end.message !== undefined) stop.message = end.message
  return [{ type: "start", id: ID, model: MODEL }, ...out, stop]
}

/** Splits bytes at the given positions. */
function chunk(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)
  const out: Uint8Array[] = []
  let from = 0
  for (const c of [...at, bytes.length]) {
    out.push(bytes.slice(from, c))
    from = c
  }
  return out
}

function encode(events: readonly StreamEvent[]): string {
  const encoder = createAnthropicStreamEncoder({ model: MODEL, id: ID })
  return events.map((e) => encoder.push(e)).join("") + encoder.end()
}

function decode(chunks: Uint8Array[]): StreamEvent[] {
  const decoder = new StreamDecoder("anthropic")
  const out: StreamEvent[] = []
  for (const c of chunks) decoder.feed(c, out)
  decoder.end(out)
  return out
}

describe("Anthropic stream encoder", () => {
  it("decodes back to the events it was given, however the bytes are split", () => {
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 5 }),
        ending,
        fc.array(fc.nat(4000), { maxLength: 12 }),
        (pieces, end, cuts) => {
          const events = eventsOf(pieces, end)
          const bytes = new TextEncoder().encode(encode(events))
          expect(decode(chunk(bytes, cuts))).toEqual(events)
        },
      ),
      { numRuns: 300 },
    )
  })

  it("writes the frames Anthropic writes: one ping after the first block starts, usage at start and end", () => {
    const encoder = createAnthropicStreamEncoder({ model: MODEL, id: ID })
    const frames = [
      encoder.push({ type: "start", id: "upstream_id", model: "upstream-model" }),
      encoder.push({ type: "usage", input: 12, output: 1, cacheRead: 100, cacheWrite: 5 }),
      encoder.push({ type: "text", delta: "Hi", index: 0 }),
      encoder.push({ type: "usage", input: 12, output: 7, cacheRead: 100, cacheWrite: 5 }),
      encoder.push({ type: "stop", reason: "end" }),
      encoder.end(),
    ].join("")
    expect(frames).toBe(
      [
        'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_test_1","type":"message","role":"assistant","model":"claude-test-1","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":12,"cache_creation_input_tokens":5,"cache_read_input_tokens":100,"output_tokens":1}}}',
        'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}',
        'event: ping\ndata: {"type":"ping"}',
        'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}',
        'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}',
        'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"input_tokens":12,"cache_creation_input_tokens":5,"cache_read_input_tokens":100,"output_tokens":7}}',
        'event: message_stop\ndata: {"type":"message_stop"}',
        "",
      ].join("\n\n"),
    )
  })

  it("puts the caller's input count in message_start until the upstream's usage comes, then the upstream's figures", () => {
    const usageOf = (frames: string, type: string) =>
      frames
        .split("\n\n")
        .filter((f) => f.startsWith(`event: ${type}\n`))
        .map((f) => {
          const payload = JSON.parse(f.slice(f.indexOf("data: ") + 6))
          return (payload.message ?? payload).usage
        })[0]
    const run = (events: StreamEvent[], inputTokens?: number) => {
      const encoder = createAnthropicStreamEncoder({ model: MODEL, id: ID, ...(inputTokens ? { inputTokens } : {}) })
      return events.map((e) => encoder.push(e)).join("") + encoder.end()
    }
    const late: StreamEvent[] = [
      { type: "text", delta: "Hi" },
      { type: "usage", input: 40, output: 3, cacheRead: 60, cacheWrite: 0 },
      { type: "stop", reason: "end" },
    ]
    const counted = run(late, 95)
    expect(usageOf(counted, "message_start")).toEqual({
      input_tokens: 95,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: 0,
    })
    expect(usageOf(counted, "message_delta")).toEqual({
      input_tokens: 40,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 60,
      output_tokens: 3,
    })
    // Without a count, as before: zeros until the end.
    expect(usageOf(run(late), "message_start").input_tokens).toBe(0)
    // Usage known before the first block (an Anthropic upstream) wins over the count.
    expect(usageOf(run([late[1]!, late[0]!, late[2]!], 95), "message_start").input_tokens).toBe(40)
    // No usage ever reported: the count stays, so the final figure does not fall to 0.
    expect(usageOf(run([late[0]!, late[2]!], 95), "message_delta").input_tokens).toBe(95)
  })

  it("writes parallel calls whose events interleave one block after another", () => {
    const events: StreamEvent[] = [
      { type: "tool_call_start", id: "a", name: "read_file" },
      { type: "tool_call_start", id: "b", name: "bash" },
      { type: "tool_call_delta", id: "a", argsDelta: '{"path":' },
      { type: "tool_call_delta", id: "b", argsDelta: '{"command":"ls"}' },
      { type: "tool_call_delta", id: "a", argsDelta: '"x"}' },
      { type: "tool_call_end", id: "b", input: { command: "ls" } },
      { type: "text", delta: "after" },
      { type: "tool_call_end", id: "a", input: { path: "x" } },
      { type: "stop", reason: "tool_use" },
    ]
    const decoded = decode([new TextEncoder().encode(encode(events))])
    expect(decoded.filter((e) => e.type !== "usage")).toEqual([
      { type: "start", id: ID, model: MODEL },
      { type: "tool_call_start", id: "a", name: "read_file" },
      { type: "tool_call_delta", id: "a", argsDelta: '{"path":' },
      { type: "tool_call_delta", id: "a", argsDelta: '"x"}' },
      { type: "tool_call_end", id: "a", input: { path: "x" } },
      { type: "tool_call_start", id: "b", name: "bash" },
      { type: "tool_call_delta", id: "b", argsDelta: '{"command":"ls"}' },
      { type: "tool_call_end", id: "b", input: { command: "ls" } },
      { type: "text", delta: "after", index: 2 },
      { type: "stop", reason: "tool_use", raw: "tool_use" },
    ])
  })

  it("writes calls whose events interleave in any order as whole blocks, in the order they started", () => {
    const call = fc.record({
      input: fc.dictionary(fc.stringMatching(/^[a-z]{1,4}$/), fc.integer(), { maxKeys: 3 }),
      cuts: fc.array(fc.nat(30), { maxLength: 3 }),
    })
    fc.assert(
      fc.property(
        fc.array(call, { minLength: 1, maxLength: 4 }),
        fc.array(fc.nat(), { maxLength: 40 }),
        (calls, picks) => {
          // Each call's own events in order; the calls' event lists merged by the picks.
          const lists = calls.map((c, i): StreamEvent[] => {
            const id = `call_${i}`
            const args = JSON.stringify(c.input)
            const cuts = [...new Set([0, ...c.cuts.map((x) => x % (args.length + 1)), args.length])].sort(
              (a, b) => a - b,
            )
            const deltas = cuts
              .slice(1)
              .map((to, k): StreamEvent => ({ type: "tool_call_delta", id, argsDelta: args.slice(cuts[k], to) }))
            return [
              { type: "tool_call_start", id, name: "t" },
              ...deltas,
              { type: "tool_call_end", id, input: c.input },
            ]
          })
          const merged: StreamEvent[] = []
          let k = 0
          while (lists.some((l) => l.length > 0)) {
            const open = lists.filter((l) => l.length > 0)
            merged.push(open[(picks[k++] ?? 0) % open.length]!.shift()!)
          }
          const starts = merged.filter((e) => e.type === "tool_call_start").map((e) => (e as { id: string }).id)
          const decoded = decode([new TextEncoder().encode(encode([...merged, { type: "stop", reason: "tool_use" }]))])
          const expected = starts.flatMap((id) => {
            const i = Number(id.slice(5))
            const args = JSON.stringify(calls[i]!.input)
            return [
              { type: "tool_call_start", id, name: "t" },
              { joined: args },
              { type: "tool_call_end", id, input: calls[i]!.input },
            ]
          })
          // Deltas are compared joined per call (each call's pieces keep their order).
          const grouped: unknown[] = []
          for (const e of decoded) {
            if (e.type === "tool_call_start") grouped.push(e, { joined: "" })
            else if (e.type === "tool_call_delta") (grouped.at(-1) as { joined: string }).joined += e.argsDelta
            else if (e.type === "tool_call_end") grouped.push(e)
          }
          expect(grouped).toEqual(expected)
        },
      ),
      { numRuns: 200 },
    )
  })

  it("writes every call that was still open or waiting when the stop came", () => {
    const events: StreamEvent[] = [
      { type: "tool_call_start", id: "a", name: "read_file" },
      { type: "tool_call_start", id: "b", name: "bash" },
      { type: "tool_call_start", id: "c", name: "grep" },
      { type: "tool_call_delta", id: "c", argsDelta: '{"q":1}' },
      { type: "tool_call_delta", id: "b", argsDelta: '{"command":"ls"}' },
      { type: "stop", reason: "tool_use" },
    ]
    const ends = decode([new TextEncoder().encode(encode(events))]).filter((e) => e.type === "tool_call_end")
    expect(ends).toEqual([
      { type: "tool_call_end", id: "a", input: {} },
      { type: "tool_call_end", id: "b", input: { command: "ls" } },
      { type: "tool_call_end", id: "c", input: { q: 1 } },
    ])
  })

  it("sends a call whose arguments never streamed in one piece, and leaves out the reader's warnings", () => {
    const text = encode([
      { type: "tool_call_start", id: "c", name: "read_file" },
      { type: "error", kind: "invalid-arguments", message: "not JSON", toolCallId: "c" },
      { type: "tool_call_end", id: "c", input: { path: "a" } },
      { type: "stop", reason: "tool_use" },
    ])
    expect(text).not.toContain("event: error")
    expect(decode([new TextEncoder().encode(text)])).toContainEqual({
      type: "tool_call_end",
      id: "c",
      input: { path: "a" },
    })
  })

  it("ends a stream without a stop with an error event, and writes nothing after an error", () => {
    const encoder = createAnthropicStreamEncoder({ model: MODEL })
    const first = encoder.push({ type: "text", delta: "partial" })
    expect(first).toContain('"id":"msg_promptline_')
    const closing = encoder.end()
    expect(closing).toBe(
      'event: error\ndata: {"type":"error","error":{"type":"api_error","message":"the response ended before it was complete"}}\n\n',
    )
    expect(encoder.push({ type: "text", delta: "more" })).toBe("")
    expect(encoder.end()).toBe("")
  })

  it("gives the whole answer the non-streaming API gives, which reads back to the same events", () => {
    const events: StreamEvent[] = [
      { type: "start", id: ID, model: MODEL },
      { type: "thinking", delta: "Let me see.", index: 0 },
      { type: "thinking", delta: "", signature: "c2ln", index: 0 },
      { type: "text", delta: "Reading ", index: 1 },
      { type: "text", delta: "it.", index: 1 },
      { type: "tool_call_start", id: "toolu_1", name: "read_file" },
      { type: "tool_call_delta", id: "toolu_1", argsDelta: '{"path":"a.ts"}' },
      { type: "tool_call_end", id: "toolu_1", input: { path: "a.ts" } },
      { type: "usage", input: 10, output: 20, cacheRead: 0, cacheWrite: 3 },
      { type: "stop", reason: "tool_use", raw: "tool_use" },
    ]
    const body = encodeAnthropicResponse(events, { model: MODEL, id: ID })
    expect(body).toEqual({
      id: ID,
      type: "message",
      role: "assistant",
      model: MODEL,
      content: [
        { type: "thinking", thinking: "Let me see.", signature: "c2ln" },
        { type: "text", text: "Reading it." },
        { type: "tool_use", id: "toolu_1", name: "read_file", input: { path: "a.ts" } },
      ],
      stop_reason: "tool_use",
      stop_sequence: null,
      usage: { input_tokens: 10, cache_creation_input_tokens: 3, cache_read_input_tokens: 0, output_tokens: 20 },
    })
    const merged = anthropicResponseEvents(body)
    expect(merged.filter((e) => e.type === "tool_call_end" || e.type === "stop" || e.type === "usage")).toEqual(
      events.filter((e) => e.type === "tool_call_end" || e.type === "stop" || e.type === "usage"),
    )
    expect(
      encodeAnthropicResponse([{ type: "error", kind: "rate-limit", message: "slow down" }], { model: MODEL }),
    ).toEqual({
      type: "error",
      error: { type: "rate_limit_error", message: "slow down" },
    })
  })
})
