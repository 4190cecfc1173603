import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { decodePayloadLines, StreamDecoder } from "../decode.js"
import type { StreamEvent } from "../stream.js"
import type { StreamEncodeOptions } from "../types.js"
import { geminiResponseEvents } from "./decode.js"
import { createGeminiStreamEncoder, encodeGeminiResponse } from "./stream-encode.js"

const STREAMS = join(import.meta.dirname, "../../../test/fixtures/streams/gemini")
const options: StreamEncodeOptions = { model: "gemini-3-pro-preview", id: "resp-1" }

function encode(events: readonly StreamEvent[], sse: boolean): string[] {
  const encoder = createGeminiStreamEncoder({ ...options, sse })
  return [...events.map((e) => encoder.push(e)), encoder.end()]
}

/** Decodes `bytes` cut at `cuts` with the byte-level SSE decoder. */
function decodeSse(bytes: Uint8Array, cuts: number[]): StreamEvent[] {
  const decoder = new StreamDecoder("gemini")
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

/** The chunks of a JSON-array answer, each given to the payload decoder. */
function decodeArray(text: string): StreamEvent[] {
  const chunks = JSON.parse(text) as unknown[]
  return decodePayloadLines("gemini", chunks.map((c) => JSON.stringify(c)).join("\n")).events
}

/** Events without their block index (the decoder numbers blocks its own way). */
const unindexed = (list: StreamEvent[]): StreamEvent[] =>
  list.map((e) => {
    if (!("index" in e)) return e
    const { index: _index, ...rest } = e
    return rest
  })

const text = fc.string({ minLength: 1, maxLength: 8, unit: "grapheme" })
const signature = fc.constantFrom("c2ln", "EpEgCo4gAb4+9vv=")
const item = fc.oneof(
  text.map((delta): StreamEvent[] => [{ type: "text", delta }]),
  fc
    .record({ delta: text, signature: fc.option(signature, { nil: undefined }) })
    .map(({ delta, signature }): StreamEvent[] => [
      { type: "thinking", delta, index: 0, ...(signature ? { signature } : {}) },
    ]),
  signature.map((signature): StreamEvent[] => [{ type: "thinking", delta: "", signature }]),
  fc
    .record({
      id: fc.constantFrom("call_a", "toolu_01", ""),
      name: fc.constantFrom("read_file", "run"),
      input: fc.dictionary(fc.constantFrom("path", "n", "deep"), fc.oneof(text, fc.integer(), fc.constant({ a: [1] }))),
      signature: fc.option(signature, { nil: undefined }),
      cut: fc.nat(),
    })
    .map(({ id, name, input, signature, cut }): StreamEvent[] => {
      const args = JSON.stringify(input)
      const at = cut % (args.length + 1)
      return [
        { type: "tool_call_start", id, name },
        { type: "tool_call_delta", id, argsDelta: args.slice(0, at) },
        { type: "tool_call_delta", id, argsDelta: args.slice(at) },
        { type: "tool_call_end", id, input, ...(signature ? { signature } : {}) },
      ]
    }),
)

/** Per error kind, a message that says the same thing in Gemini's words (so the decoder classifies it back). */
const ERRORS = {
  "rate-limit": ["RESOURCE_EXHAUSTED", "Resource has been exhausted."],
  quota: ["RESOURCE_EXHAUSTED", "Quota exceeded for this project."],
  server: ["INTERNAL", "An internal error has occurred."],
  "invalid-request": ["INVALID_ARGUMENT", "Request contains an invalid argument."],
  auth: ["UNAUTHENTICATED", "Request had invalid authentication credentials."],
  "context-overflow": [
    "INVALID_ARGUMENT",
    "The input token count (1196265) exceeds the maximum number of tokens allowed (1048576).",
  ],
  truncated: ["UNAVAILABLE", "the stream ended before a finishReason"],
} as const

const answer = fc.record({
  items: fc.array(item, { maxLength: 6 }),
  usage: fc.record({ input: fc.nat(5000), output: fc.nat(500), cacheRead: fc.nat(4000), cacheWrite: fc.nat(100) }),
  reasoning: fc.nat(500),
  end: fc.oneof(
    fc.record({
      stop: fc.constantFrom("end", "length", "refusal"),
      message: fc.option(fc.constantFrom("Blocked.", "Long."), { nil: undefined }),
    }),
    fc.record({
      error: fc.constantFrom(...(Object.keys(ERRORS) as (keyof typeof ERRORS)[])),
      wait: fc.option(fc.integer({ min: 1, max: 60 }), { nil: undefined }),
    }),
  ),
})

type Answer = typeof answer extends fc.Arbitrary<infer T> ? T : never

/** The events of a generated answer; a call with no id of its own gets the one the decoder derives. */
function eventsOf(a: Answer): StreamEvent[] {
  const out: StreamEvent[] = [{ type: "start", id: "upstream-id", model: "upstream-model" }]
  let calls = 0
  for (const group of a.items) {
    const first = group[0]!
    const id = first.type === "tool_call_start" ? (first.id ? `${first.id}${calls}` : `resp-1_${calls}`) : undefined
    if (id !== undefined) calls++
    out.push(...group.map((e) => (id !== undefined && "id" in e ? { ...e, id } : e)))
  }
  const reasoning = Math.min(a.reasoning, a.usage.output)
  out.push({ type: "usage", ...a.usage, ...(reasoning > 0 ? { reasoning } : {}) })
  if ("stop" in a.end) {
    const reason = a.end.stop === "end" && calls > 0 ? "tool_use" : a.end.stop
    out.push({ type: "stop", reason, ...(a.end.message ? { message: a.end.message } : {}) })
  } else {
    const [, message] = ERRORS[a.end.error]
    const wait = a.end.wait === undefined ? {} : { retryAfterMs: a.end.wait * 1000 }
    out.push({ type: "error", kind: a.end.error, message, ...wait }, { type: "stop", reason: "error" })
  }
  return out
}

/**
 * What the Gemini wire carries of the events, i.e. what decoding their encoding gives: the response id and model
 * are the encoder's options; text and thinking block indexes are the decoder's own; a call's argument deltas
 * come as one (Gemini sends calls whole); a prompt count holds cache writes (Gemini has none, so they are input);
 * `raw` names the finish reason. An error is written as Google's error chunk (`<STATUS>: <message>`, stream
 * problems as UNAVAILABLE, a server error); the usage reported before it is not (it rides on later chunks) unless
 * a signature still waiting is written with it; the response has no start when the error came first.
 */
function expected(events: readonly StreamEvent[]): StreamEvent[] {
  const out: StreamEvent[] = []
  const failed = events.some((e) => e.type === "error")
  let content = false
  // A signature of its own still waiting when the error comes is written first, with the usage known by then.
  const beforeUsage = events.slice(
    0,
    events.findIndex((e) => e.type === "usage"),
  )
  const lastContent = beforeUsage.at(-1)
  const signatureLast = lastContent?.type === "thinking" && lastContent.delta === ""
  let afterError: StreamEvent | undefined
  for (const e of events) {
    if (e.type === "start") continue
    if (e.type === "text" || e.type === "thinking") {
      const { index: _index, ...rest } = e
      out.push(rest)
    } else if (e.type === "tool_call_delta") {
      if (out.at(-1)?.type === "tool_call_delta") continue
      const end = events.find((x) => x.type === "tool_call_end" && x.id === e.id) as { input: unknown }
      out.push({ ...e, argsDelta: JSON.stringify(end.input) })
    } else if (e.type === "usage") {
      const usage: StreamEvent = { ...e, input: e.input + e.cacheWrite, cacheWrite: 0 }
      if (!failed) out.push(usage)
      else if (signatureLast) afterError = usage
    } else if (e.type === "stop") {
      const raw = { end: "STOP", tool_use: "STOP", length: "MAX_TOKENS", refusal: "SAFETY", error: "" }[e.reason]
      out.push(failed ? { type: "stop", reason: "error" } : { ...e, raw })
    } else if (e.type === "error") {
      const [status, message] = ERRORS[e.kind as keyof typeof ERRORS]
      const kind = e.kind === "truncated" ? "server" : e.kind === "quota" ? "quota" : e.kind
      out.push({ ...e, kind, message: `${status}: ${message}` })
      if (afterError) out.push(afterError)
    } else out.push(e)
    if (e.type !== "usage" && e.type !== "error" && e.type !== "stop") content = true
  }
  const start: StreamEvent = { type: "start", id: "resp-1", model: "gemini-3-pro-preview" }
  return content || !failed ? [start, ...out] : out
}

describe("Gemini stream encoding", () => {
  it("decodes back to the events it was given, under any cutting of the SSE bytes", () => {
    fc.assert(
      fc.property(answer, fc.array(fc.nat(), { maxLength: 8 }), (a, cuts) => {
        const events = eventsOf(a)
        const bytes = new TextEncoder().encode(encode(events, true).join(""))
        expect(unindexed(decodeSse(bytes, cuts))).toEqual(expected(events))
      }),
    )
  })

  it("streams the JSON array progressively ('[' + chunks joined by ',\\r\\n' + ']') and decodes it the same", () => {
    fc.assert(
      fc.property(answer, (a) => {
        const events = eventsOf(a)
        const pieces = encode(events, false).filter((p) => p !== "")
        expect(pieces[0]!.startsWith("[")).toBe(true)
        for (const piece of pieces.slice(1, -1)) expect(piece.startsWith(",\r\n{")).toBe(true)
        expect(pieces.at(-1)!.endsWith("]")).toBe(true)
        expect(unindexed(decodeArray(pieces.join("")))).toEqual(expected(events))
      }),
    )
  })

  it("writes a whole answer that reads as the same events, text of a kind merged", () => {
    fc.assert(
      fc.property(answer, (a) => {
        const events = eventsOf(a)
        const body = encodeGeminiResponse(events, options)
        const merged = (list: StreamEvent[]) => {
          const out: StreamEvent[] = []
          const joinable = (x: StreamEvent | undefined): x is Extract<StreamEvent, { type: "text" | "thinking" }> =>
            x !== undefined && (x.type === "text" || x.type === "thinking") && x.delta !== ""
          for (const e of list) {
            const prev = out.at(-1)
            if (joinable(prev) && joinable(e) && prev.type === e.type && !("signature" in prev)) {
              const { index: _i, ...rest } = e
              out[out.length - 1] = { ...prev, ...rest, delta: prev.delta + e.delta }
            } else out.push(e)
          }
          return out
        }
        // An answer that failed is the error's body alone.
        const failed = events.some((e) => e.type === "error")
        const want = merged(expected(events)).filter((e) => !failed || e.type === "error" || e.type === "stop")
        expect(unindexed(geminiResponseEvents(body))).toEqual(unindexed(want))
      }),
    )
  })

  it("re-encodes every recorded Gemini stream to one that decodes to the same events", () => {
    const files = readdirSync(STREAMS).filter((f) => f.endsWith(".chunks.txt"))
    expect(files.length).toBeGreaterThan(5)
    for (const file of files) {
      const recorded = decodePayloadLines("gemini", readFileSync(join(STREAMS, file), "utf8")).events
      const start = recorded.find((e) => e.type === "start") as { id?: string; model?: string }
      const again = createGeminiStreamEncoder({ model: start.model ?? "m", id: start.id, sse: true })
      const bytes = new TextEncoder().encode(recorded.map((e) => again.push(e)).join("") + again.end())
      const strip = (list: StreamEvent[]) => unindexed(list.filter((e) => e.type !== "start"))
      expect(strip(decodeSse(bytes, [])), file).toEqual(strip(recorded))
    }
  })

  it("ends an answer that never stopped with Google's error: in the array, and in SSE as an event then the bare body", () => {
    const [error] = JSON.parse(encode([], false).join("")) as Record<string, unknown>[]
    expect(error).toEqual({ error: expect.objectContaining({ code: 503, status: "UNAVAILABLE" }) })
    const body = JSON.stringify(error)
    const sse = encode([{ type: "start" }, { type: "text", delta: "Hel" }], true).join("")
    // The last bytes: the error as a data event, then the same body bare, with nothing after it.
    expect(sse.endsWith(`data: ${body}\r\n\r\n${body}`)).toBe(true)
    const decoded = decodeSse(new TextEncoder().encode(sse), [])
    expect(decoded.filter((e) => e.type === "error")).toHaveLength(1)
    expect(decoded.at(-1)).toEqual({ type: "stop", reason: "error" })
  })
})
