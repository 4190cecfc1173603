/**
 * The Chat stream encoder against the Chat decoder and against recorded streams. What the wire cannot carry, and
 * so is normalized before comparing: the provider's raw stop reason (added by the decoder), `index` on text and
 * thinking deltas, cache writes (OpenAI and DeepSeek report none: they count as input), the usage without
 * `includeUsage` (OpenAI sends none), and when a call ended (every call ends at the finishing chunk).
 */
import { readFileSync } from "node:fs"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { decodePayloadLines, StreamDecoder } from "../decode.js"
import { deepseekFormat } from "../deepseek/index.js"
import type { StreamEvent } from "../stream.js"
import { openAIChatFormat } from "./index.js"
import type { ChatStreamFlavour } from "./stream-encode.js"

const MODULES = { "openai-chat": openAIChatFormat, deepseek: deepseekFormat } as const
const options = { model: "m-1", id: "chatcmpl-test", created: 1_700_000_000 }

function encode(flavour: ChatStreamFlavour, events: readonly StreamEvent[], includeUsage: boolean): string {
  const encoder = MODULES[flavour].createStreamEncoder({ ...options, includeUsage })
  return events.map((e) => encoder.push(e)).join("") + encoder.end()
}

/** Decodes `text` fed in the pieces `cuts` makes of its bytes. */
function decode(flavour: ChatStreamFlavour, text: string, cuts: number[], includeUsage: boolean): StreamEvent[] {
  const bytes = new TextEncoder().encode(text)
  const decoder = new StreamDecoder(MODULES[flavour], { expectUsage: includeUsage })
  const out: StreamEvent[] = []
  let at = 0
  for (const cut of [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)) {
    decoder.feed(bytes.subarray(at, cut), out)
    at = cut
  }
  decoder.feed(bytes.subarray(at), out)
  decoder.end(out)
  return out
}

const piece = fc.string({ minLength: 1, maxLength: 6 })
const callArb = fc.record({
  name: fc.stringMatching(/^[a-z_]{1,8}$/),
  input: fc.dictionary(fc.stringMatching(/^[a-z]{1,4}$/), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
  size: fc.integer({ min: 1, max: 7 }),
})
const turnArb = fc.record({
  deltas: fc.array(fc.tuple(fc.constantFrom("text" as const, "thinking" as const), piece), { maxLength: 8 }),
  calls: fc.array(callArb, { maxLength: 3 }),
  usage: fc.record({
    input: fc.nat(5000),
    output: fc.integer({ min: 1, max: 5000 }),
    cacheRead: fc.nat(5000),
    cacheWrite: fc.nat(500),
    reasoning: fc.option(fc.integer({ min: 1, max: 10 }), { nil: undefined }),
  }),
  stop: fc.constantFrom("end" as const, "tool_use" as const, "length" as const, "refusal" as const),
})

type Turn = typeof turnArb extends fc.Arbitrary<infer T> ? T : never

/** A response's events in the order the Chat wire carries them: every call ends at the finish. */
function turnStream(turn: Turn): StreamEvent[] {
  const events: StreamEvent[] = [{ type: "start", id: options.id, model: options.model }]
  for (const [type, delta] of turn.deltas) events.push({ type, delta })
  const calls = turn.calls.map((c, i) => ({ ...c, id: `call_${i}`, args: JSON.stringify(c.input) }))
  for (const call of calls) {
    events.push({ type: "tool_call_start", id: call.id, name: call.name })
    for (let at = 0; at < call.args.length; at += call.size)
      events.push({ type: "tool_call_delta", id: call.id, argsDelta: call.args.slice(at, at + call.size) })
  }
  for (const call of calls) events.push({ type: "tool_call_end", id: call.id, input: call.input })
  const { reasoning, ...usage } = turn.usage
  events.push({ type: "usage", ...usage, ...(reasoning === undefined ? {} : { reasoning }) })
  events.push({ type: "stop", reason: turn.stop })
  return events
}

/** What the decoder can give back of `events` (see the file comment). */
function carried(events: readonly StreamEvent[], flavour: ChatStreamFlavour, includeUsage: boolean): StreamEvent[] {
  const calls = events.some((e) => e.type === "tool_call_start")
  return events.flatMap((e): StreamEvent[] => {
    if (e.type === "usage") {
      if (flavour === "openai-chat" && !includeUsage) return []
      return [{ ...e, input: e.input + e.cacheWrite, cacheWrite: 0 }]
    }
    if (e.type === "stop") return [{ type: "stop", reason: e.reason === "end" && calls ? "tool_use" : e.reason }]
    return [e]
  })
}

const withoutRaw = (events: StreamEvent[]) =>
  events.map((e) => {
    if (e.type !== "stop") return e
    const { raw: _raw, ...rest } = e
    return rest
  })

describe("Chat stream encoding", () => {
  it.each([
    ["openai-chat", true],
    ["openai-chat", false],
    ["deepseek", true],
    ["deepseek", false],
  ] as const)(
    "%s (include_usage %s): decoding the encoded stream gives the events back under any chunking",
    (flavour, includeUsage) => {
      fc.assert(
        fc.property(turnArb, fc.array(fc.nat(100_000), { maxLength: 12 }), (turn, cuts) => {
          const events = turnStream(turn)
          const text = encode(flavour, events, includeUsage)
          expect(text.endsWith("data: [DONE]\n\n")).toBe(true)
          expect(withoutRaw(decode(flavour, text, cuts, includeUsage))).toEqual(carried(events, flavour, includeUsage))
        }),
        { numRuns: 120 },
      )
    },
  )

  it("writes a call that ended without streamed arguments (a whole-body upstream) with its input as one piece", () => {
    const events: StreamEvent[] = [
      { type: "start" },
      { type: "tool_call_start", id: "c1", name: "read" },
      { type: "tool_call_end", id: "c1", input: { path: "a.ts" } },
      { type: "stop", reason: "tool_use" },
    ]
    const decoded = decode("openai-chat", encode("openai-chat", events, false), [], false)
    expect(decoded.filter((e) => e.type.startsWith("tool_call"))).toEqual([
      { type: "tool_call_start", id: "c1", name: "read" },
      { type: "tool_call_delta", id: "c1", argsDelta: '{"path":"a.ts"}' },
      { type: "tool_call_end", id: "c1", input: { path: "a.ts" } },
    ])
  })

  it.each(["openai-chat", "deepseek"] as const)(
    "%s: an error ends the stream with OpenAI's error payload and no [DONE]; the decoder reads its kind back",
    (flavour) => {
      for (const kind of ["rate-limit", "server", "context-overflow", "auth", "quota", "invalid-request"] as const) {
        const events: StreamEvent[] = [
          { type: "start" },
          { type: "text", delta: "Hel" },
          {
            type: "error",
            kind,
            message: kind === "context-overflow" ? "prompt is too long: 210000 tokens > 200000 maximum" : "it failed",
          },
          { type: "stop", reason: "error" },
        ]
        const text = encode(flavour, events, true)
        expect(text).not.toContain("[DONE]")
        expect(text).toMatch(/data: \{"error":\{"message":/)
        const decoded = decode(flavour, text, [7], true)
        expect(decoded.find((e) => e.type === "error")).toMatchObject({ kind })
        expect(decoded.at(-1)).toEqual({ type: "stop", reason: "error" })
      }
    },
  )

  it("leaves warnings (arguments that are not JSON) in the stream: the answer goes on", () => {
    const events: StreamEvent[] = [
      { type: "start" },
      { type: "tool_call_start", id: "c", name: "f" },
      { type: "tool_call_delta", id: "c", argsDelta: "{oops" },
      { type: "error", kind: "invalid-arguments", message: "not JSON", toolCallId: "c" },
      { type: "tool_call_end", id: "c", input: {} },
      { type: "stop", reason: "tool_use" },
    ]
    const decoded = decode("openai-chat", encode("openai-chat", events, false), [], false)
    expect(decoded.map((e) => e.type)).toEqual([
      "start",
      "tool_call_start",
      "tool_call_delta",
      "error",
      "tool_call_end",
      "stop",
    ])
    expect(decoded.at(-1)).toMatchObject({ reason: "tool_use" })
  })

  it.each(["openai-chat", "deepseek"] as const)(
    "%s: events that end without a stop are an error payload, never a finish reason",
    (flavour) => {
      const text = encode(flavour, [{ type: "start" }, { type: "text", delta: "Hel" }], true)
      expect(text).not.toContain('finish_reason":"')
      expect(text).not.toContain("[DONE]")
      const decoded = decode(flavour, text, [], true)
      expect(decoded.find((e) => e.type === "error")).toMatchObject({ message: expect.stringMatching(/ended before/) })
      expect(decoded.at(-1)).toEqual({ type: "stop", reason: "error" })
    },
  )
})

const FIXTURES = new URL("../../../test/fixtures/streams/", import.meta.url)

/** A recording's chunks without what only the provider knows (fingerprint, tier, obfuscation padding). */
function recorded(folder: string, file: string): Record<string, unknown>[] {
  return readFileSync(new URL(`${folder}/${file}`, FIXTURES), "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => {
      const { system_fingerprint: _f, service_tier: _t, obfuscation: _o, ...rest } = JSON.parse(l)
      return rest
    })
}

describe("Chat stream encoding against recorded streams", () => {
  it.each([
    ["deepseek", "deepseek", "deepseek-tool-call.chunks.txt", false],
    ["deepseek", "deepseek", "deepseek-reasoning.chunks.txt", false],
    ["deepseek", "deepseek", "deepseek-text.chunks.txt", false],
    ["openai-chat", "openai-chat", "openai-text.chunks.txt", true],
  ] as const)("%s: re-encoding the decoded %s/%s writes the recorded chunks", (flavour, folder, file, includeUsage) => {
    const chunks = recorded(folder, file)
    const first = chunks[0] as { id: string; model: string; created: number }
    const { events } = decodePayloadLines(MODULES[flavour], chunks.map((c) => JSON.stringify(c)).join("\n"), {
      expectUsage: includeUsage,
    })
    const encoder = MODULES[flavour].createStreamEncoder({
      model: first.model,
      id: first.id,
      created: first.created,
      includeUsage,
    })
    const text = events.map((e) => encoder.push(e)).join("") + encoder.end()
    const ours = text
      .split("\n\n")
      .filter((f) => f.startsWith("data: {"))
      .map((f) => JSON.parse(f.slice(6)))
    expect(ours).toEqual(chunks)
  })
})

describe("whole answers against recorded bodies", () => {
  it.each([
    ["deepseek", "deepseek/deepseek-tool-call.json"],
    ["deepseek", "deepseek/deepseek-reasoning.json"],
    ["openai-chat", "openai-chat/openai-text.json"],
  ] as const)("%s: re-encoding the events of %s writes the recorded body", (flavour, file) => {
    const {
      system_fingerprint: _f,
      service_tier: _t,
      ...body
    } = JSON.parse(readFileSync(new URL(file, FIXTURES), "utf8")) as Record<string, unknown> & {
      id: string
      model: string
      created: number
    }
    const events = MODULES[flavour].responseEvents(body)
    expect(MODULES[flavour].encodeResponse(events, { model: body.model, id: body.id, created: body.created })).toEqual(
      body,
    )
  })
})
