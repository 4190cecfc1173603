import { readdirSync, readFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { WireFormat } from "../models/types.js"
import { Accumulator, type AssembledResponse } from "./accumulate.js"
import { isErrorLevel } from "./completeness.js"
import { decodeOptionsFor, decodePayloadLines, decodeResponse, StreamDecoder } from "./decode.js"
import type { DecodeOptions, StreamEvent } from "./stream.js"

const streams = new URL("../../test/fixtures/streams/", import.meta.url)
const FORMATS: WireFormat[] = ["anthropic", "openai-chat", "openai-responses", "gemini", "deepseek"]

/** Every recorded stream, as its payload lines. */
const recorded = FORMATS.flatMap((format) =>
  readdirSync(new URL(`${format}/`, streams))
    .filter((f) => f.endsWith(".chunks.txt"))
    .sort()
    .map((file) => ({
      format,
      file,
      lines: readFileSync(new URL(`${format}/${file}`, streams), "utf8")
        .split("\n")
        .filter((l) => l.trim() !== ""),
    })),
)

/** Every recorded OpenAI Chat and DeepSeek stream carries its usage chunk: they were made with include_usage. */
const optionsOf = (format: WireFormat): DecodeOptions =>
  format === "openai-chat" || format === "deepseek" ? { expectUsage: true } : {}

function parse(line: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(line) as unknown
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}

/**
 * The completeness rules restated independently of the decoders: the payload after which a response
 * counts as complete (docs/wire-formats.md, "Completeness").
 */
function isTerminator(format: WireFormat, line: string): boolean {
  const p = parse(line)
  if (!p) return false
  switch (format) {
    case "anthropic":
      return p.type === "message_stop"
    case "openai-responses":
      return p.type === "response.completed" || p.type === "response.incomplete"
    case "gemini": {
      const first = Array.isArray(p.candidates) ? (p.candidates[0] as Record<string, unknown> | undefined) : undefined
      return typeof first?.finishReason === "string"
    }
    default:
      return typeof p.usage === "object" && p.usage !== null
  }
}

/** Payloads whose loss must make their response incomplete. */
function isStructural(format: WireFormat, line: string): boolean {
  const p = parse(line)
  if (isTerminator(format, line)) return true
  if (format === "anthropic") return p?.type === "message_delta"
  if (format === "openai-chat" || format === "deepseek")
    return (
      Array.isArray(p?.choices) &&
      p.choices.some((c) => typeof (c as { finish_reason?: unknown }).finish_reason === "string")
    )
  return false
}

/** The lines as the provider sends them: one SSE event each (Anthropic and Responses name the event). */
function toSse(format: WireFormat, lines: string[]): { text: string; ends: number[] } {
  let text = ""
  const ends: number[] = []
  for (const line of lines) {
    const type = parse(line)?.type
    if ((format === "anthropic" || format === "openai-responses") && typeof type === "string")
      text += `event: ${type}\n`
    text += `data: ${line}\n`
    ends.push(Buffer.byteLength(text))
    text += "\n"
  }
  if (format === "openai-chat" || format === "deepseek") text += "data: [DONE]\n\n"
  return { text, ends }
}

function decodeBytes(format: WireFormat, bytes: Uint8Array, options: DecodeOptions): AssembledResponse[] {
  const decoder = new StreamDecoder(format, options)
  const events: StreamEvent[] = []
  decoder.feed(bytes, events)
  decoder.end(events)
  const acc = new Accumulator({ ts: 1 })
  for (const e of events) acc.push(e)
  return acc.finish()
}

/** complete ⇒ no error-level error and a stop other than error; incomplete ⇒ stop error and an error-level error saying why. */
function expectInvariant(r: AssembledResponse, where: string): void {
  if (r.complete) {
    expect(r.stopReason, where).not.toBe("error")
    expect(r.errors.filter(isErrorLevel), where).toEqual([])
  } else {
    expect(r.stopReason, where).toBe("error")
    expect(r.errors.some(isErrorLevel), where).toBe(true)
  }
}

describe("completeness: every recorded stream, cut anywhere (property)", () => {
  it("satisfies the invariant at every cut, and only responses whose terminator arrived are complete", () => {
    for (const r of recorded) {
      const { text, ends } = toSse(r.format, r.lines)
      const bytes = new TextEncoder().encode(text)
      const terminatorEnds = ends.filter((_, i) => isTerminator(r.format, r.lines[i]!))
      fc.assert(
        fc.property(fc.nat({ max: bytes.length }), (cut) => {
          const responses = decodeBytes(r.format, bytes.subarray(0, cut), optionsOf(r.format))
          for (const response of responses) expectInvariant(response, `${r.file} cut at ${cut}`)
          const expected = terminatorEnds.filter((end) => end <= cut).length
          expect(responses.filter((x) => x.complete).length, `${r.file} cut at ${cut}`).toBe(expected)
        }),
        { numRuns: 60, examples: [[bytes.length], [0], ...terminatorEnds.map((end) => [end - 1])] },
      )
    }
  })

  it("satisfies the invariant when one payload is lost, and losing a terminator or stop costs completeness", () => {
    for (const r of recorded) {
      // One SSE event per line, built once; a lost payload is a lost event.
      const events = r.lines.map((line) => toSse(r.format, [line]).text.replace("data: [DONE]\n\n", ""))
      const done = r.format === "openai-chat" || r.format === "deepseek" ? "data: [DONE]\n\n" : ""
      const bytesWithout = (drop: number) =>
        new TextEncoder().encode(events.filter((_, i) => i !== drop).join("") + done)
      const fullComplete = decodeBytes(r.format, bytesWithout(-1), optionsOf(r.format)).filter((x) => x.complete).length
      fc.assert(
        fc.property(fc.nat({ max: r.lines.length - 1 }), (drop) => {
          const responses = decodeBytes(r.format, bytesWithout(drop), optionsOf(r.format))
          for (const response of responses) expectInvariant(response, `${r.file} without line ${drop}`)
          if (isStructural(r.format, r.lines[drop]!))
            expect(responses.filter((x) => x.complete).length, `${r.file} without line ${drop}`).toBeLessThan(
              fullComplete,
            )
        }),
        { numRuns: 15, examples: r.lines.flatMap((l, i) => (isStructural(r.format, l) ? [[i]] : [])) },
      )
    }
  }, 120_000)
})

describe("completeness: the cases that were reported complete", () => {
  const lines = (format: WireFormat, file: string) =>
    recorded.find((r) => r.format === format && r.file === file)!.lines

  it("an Anthropic stream missing only message_stop is truncated", () => {
    const cut = lines("anthropic", "anthropic-text.chunks.txt").slice(0, -1)
    const [response] = decodeBytes("anthropic", new TextEncoder().encode(toSse("anthropic", cut).text), {})
    expect(response!.complete).toBe(false)
    expect(response!.stopReason).toBe("error")
    expect(response!.rawStopReason).toBe("end_turn")
    expect(response!.errors).toEqual([
      { type: "error", kind: "truncated", message: "the stream ended before message_stop" },
    ])
  })

  it("an OpenAI Chat stream cut before its usage chunk is truncated when usage was requested", () => {
    const all = lines("openai-chat", "openai-text.chunks.txt")
    const cut = all.slice(0, -1)
    const acc = new Accumulator({ ts: 1 })
    for (const e of decodePayloadLines("openai-chat", cut.join("\n"), { expectUsage: true }).events) acc.push(e)
    const [response] = acc.finish()
    expect(response!.complete).toBe(false)
    expect(response!.stopReason).toBe("error")
    expect(response!.errors).toEqual([
      {
        type: "error",
        kind: "truncated",
        message: "the stream ended before the usage chunk (stream_options.include_usage)",
      },
    ])
    // Without include_usage nothing follows the finish reason: the same bytes are complete.
    const [unrequested] = decodeBytes("openai-chat", new TextEncoder().encode(toSse("openai-chat", cut).text), {})
    expect(unrequested!.complete).toBe(true)
    expect(unrequested!.stopReason).toBe("end")
  })

  it("an OpenAI Chat stream with [DONE] and no finish_reason is truncated", () => {
    const all = lines("openai-chat", "openai-text.chunks.txt")
    const noFinish = all.filter((l) => !l.includes('"finish_reason":"stop"') && !l.includes('"usage":{'))
    const [response] = decodeBytes("openai-chat", new TextEncoder().encode(toSse("openai-chat", noFinish).text), {})
    expect(response!.complete).toBe(false)
    expect(response!.stopReason).toBe("error")
    expect(response!.errors).toEqual([
      { type: "error", kind: "truncated", message: "[DONE] arrived without a finish_reason" },
    ])
  })

  it("an Anthropic message_stop without a stop_reason is not complete either", () => {
    const noDelta = lines("anthropic", "anthropic-text.chunks.txt").filter((l) => !l.includes('"message_delta"'))
    const [response] = decodeBytes("anthropic", new TextEncoder().encode(toSse("anthropic", noDelta).text), {})
    expect([response!.complete, response!.stopReason]).toEqual([false, "error"])
    expect(response!.errors).toEqual([
      { type: "error", kind: "truncated", message: "message_stop arrived without a stop_reason" },
    ])
  })

  it("the transport tells the decoder whether usage was requested", () => {
    expect(decodeOptionsFor("openai-chat", { stream_options: { include_usage: true } })).toEqual({ expectUsage: true })
    expect(decodeOptionsFor("deepseek", { stream_options: { include_usage: true } })).toEqual({ expectUsage: true })
    expect(decodeOptionsFor("openai-chat", { stream: true })).toEqual({})
    expect(decodeOptionsFor("anthropic", { stream_options: { include_usage: true } })).toEqual({})
  })
})

describe("completeness over real HTTP: a socket reset", () => {
  let server: Server
  let base = ""
  /** /<format>/<file>/<line count>: the first lines of a recording as SSE, then the socket is destroyed. */
  beforeAll(async () => {
    server = createServer((req, res) => {
      const [, format, file, count] = /^\/([^/]+)\/([^/]+)\/(\d+)$/.exec(req.url ?? "") ?? []
      const r = recorded.find((x) => x.format === format && x.file === file)
      if (!r) {
        res.writeHead(404).end()
        return
      }
      const { text } = toSse(r.format, r.lines.slice(0, Number(count)))
      res.writeHead(200, { "content-type": "text/event-stream" })
      // Without [DONE]: the connection breaks right after the last line given.
      res.write(text.replace("data: [DONE]\n\n", ""), () => setImmediate(() => res.socket?.destroy()))
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  const fetchResponse = async (format: WireFormat, file: string, count: number, options: DecodeOptions) => {
    const res = await fetch(`${base}/${format}/${file}/${count}`)
    return decodeResponse(format, res.body!, { ts: 1, ...options })
  }

  it("after the finish reason but before the requested usage chunk: incomplete, with the network error", async () => {
    const r = recorded.find((x) => x.file === "openai-text.chunks.txt")!
    const response = await fetchResponse("openai-chat", r.file, r.lines.length - 1, { expectUsage: true })
    expect(response.complete).toBe(false)
    expect(response.stopReason).toBe("error")
    expect(response.rawStopReason).toBe("stop")
    expect(response.errors.map((e) => e.kind)).toEqual(["network"])
  })

  it("after an Anthropic stop_reason but before message_stop: incomplete", async () => {
    const r = recorded.find((x) => x.file === "anthropic-text.chunks.txt")!
    const response = await fetchResponse("anthropic", r.file, r.lines.length - 1, {})
    expect(response.complete).toBe(false)
    expect(response.stopReason).toBe("error")
    expect(response.errors.map((e) => e.kind)).toEqual(["network"])
  })

  it("after the whole response: complete, and the late failure is not an error", async () => {
    for (const r of recorded.filter((x) =>
      ["anthropic-text.chunks.txt", "openai-text.chunks.txt", "google-text.chunks.txt"].includes(x.file),
    )) {
      const response = await fetchResponse(r.format, r.file, r.lines.length, optionsOf(r.format))
      expect(response.complete, r.file).toBe(true)
      expect(response.errors, r.file).toEqual([])
    }
  })
})
