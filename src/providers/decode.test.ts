import { readdirSync, readFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { BuiltInWireFormat } from "../models/types.js"
import type { EnabledTool, JsonSchema } from "../tools/spec.js"
import { Accumulator, type AssembledResponse } from "./accumulate.js"
import {
  decodePayloadLines,
  decodeResponse,
  decodeResponses,
  decodeStream,
  recordingShape,
  responseBodyEvents,
  StreamDecoder,
} from "./decode.js"
import type { StreamEvent } from "./stream.js"

const streams = new URL("../../test/fixtures/streams/", import.meta.url)
const handWritten = new URL("../../test/fixtures/providers/streams/", import.meta.url)
const FORMATS: BuiltInWireFormat[] = ["anthropic", "openai-chat", "openai-responses", "gemini", "deepseek"]

/** Every recorded stream: its format, name and text. */
const recorded = FORMATS.flatMap((format) =>
  readdirSync(new URL(`${format}/`, streams))
    .filter((f) => f.endsWith(".chunks.txt"))
    .sort()
    .map((file) => ({ format, file, text: readFileSync(new URL(`${format}/${file}`, streams), "utf8") })),
)

/** The recording as the provider sends it on the wire (see the fixtures README). */
function toSse(format: BuiltInWireFormat, text: string): string {
  const lines = text.split("\n").filter((l) => l.trim() !== "")
  const events = lines.map((line) => {
    let name = ""
    try {
      const type = (JSON.parse(line) as { type?: unknown }).type
      if ((format === "anthropic" || format === "openai-responses") && typeof type === "string") name = type
    } catch {
      // malformed recorded lines are sent as they are
    }
    return `${name ? `event: ${name}\n` : ""}data: ${line}\n\n`
  })
  if (format === "openai-chat" || format === "deepseek") events.push("data: [DONE]\n\n")
  return events.join("")
}

function decodeChunks(format: BuiltInWireFormat, chunks: Uint8Array[]): StreamEvent[] {
  const decoder = new StreamDecoder(format)
  const out: StreamEvent[] = []
  for (const chunk of chunks) decoder.feed(chunk, out)
  decoder.end(out)
  return out
}

function splitAt(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => Math.min(bytes.length, Math.max(0, c))))].sort((a, b) => a - b)
  const parts: Uint8Array[] = []
  let from = 0
  for (const p of [...points, bytes.length]) {
    parts.push(bytes.subarray(from, p))
    from = p
  }
  return parts
}

function assemble(events: StreamEvent[], model?: string): AssembledResponse[] {
  const acc = new Accumulator({ ts: 1_700_000_000_000, model })
  for (const e of events) acc.push(e)
  return acc.finish()
}

describe("every recorded stream decodes", () => {
  it.each(recorded.map((r) => [`${r.format}/${r.file}`, r] as const))("%s", (_, r) => {
    const events = decodeChunks(r.format, [new TextEncoder().encode(toSse(r.format, r.text))])
    const responses = assemble(events)
    expect(responses.length).toBeGreaterThan(0)
    for (const response of responses) {
      expect(response.message.role).toBe("assistant")
      // Every response of every recording ends with exactly one stop.
      expect(response.stopReason).toBeDefined()
    }
    expect(events.filter((e) => e.type === "stop").length).toBe(responses.length)
    const last = responses[responses.length - 1]!
    if (r.file === "openai-error.1.chunks.txt") {
      expect(last.complete).toBe(false)
      expect(last.errors[0]?.kind).toBe("quota")
    } else if (r.file === "parallel-tool-call-wrapper.1.chunks.txt") {
      // Upstream recorded its first and last frames malformed; the calls in between still decode.
      expect(last.errors.map((e) => e.kind)).toEqual(["malformed", "malformed", "truncated"])
      expect(last.message.content.map((b) => (b.type === "tool_use" ? b.name : b.type))).toEqual([
        "weather",
        "cityAttractions",
      ])
    } else {
      expect(last.errors).toEqual([])
      expect(last.complete).toBe(true)
      expect(last.message.content.length + (last.stopReason === "refusal" ? 1 : 0)).toBeGreaterThan(0)
    }
  })

  it("decodes one JSON payload per line exactly like the same payloads sent as SSE", () => {
    for (const r of recorded) {
      const viaSse = decodeChunks(r.format, [new TextEncoder().encode(toSse(r.format, r.text))])
      const viaLines = decodePayloadLines(r.format, r.text).events
      expect(viaLines, r.file).toEqual(viaSse)
    }
  })

  it("decodes the non-streamed bodies next to the streams", () => {
    const bodies = FORMATS.flatMap((format) =>
      readdirSync(new URL(`${format}/`, streams))
        .filter((f) => f.endsWith(".json"))
        .map((file) => ({ format, file, text: readFileSync(new URL(`${format}/${file}`, streams), "utf8") })),
    )
    expect(bodies.length).toBe(5)
    for (const b of bodies) {
      expect(recordingShape(b.text)).toBe("json")
      const [response] = assemble(responseBodyEvents(b.format, JSON.parse(b.text)))
      expect(response!.complete, b.file).toBe(true)
      expect(response!.message.content.length, b.file).toBeGreaterThan(0)
      expect(response!.usage.output, b.file).toBeGreaterThan(0)
    }
  })

  it("tells recordings apart: SSE, JSON lines, one JSON body", () => {
    for (const r of recorded) expect(recordingShape(r.text), r.file).toBe("json-lines")
    expect(recordingShape(toSse("anthropic", recorded[0]!.text))).toBe("sse")
    expect(recordingShape(': comment\ndata: {"a":1}\n\n')).toBe("sse")
  })
})

describe("expected messages written by hand from the provider docs", () => {
  const expectedDir = new URL("expected/", handWritten)
  const files = readdirSync(expectedDir).filter((f) => f.endsWith(".json"))
  it.each(files)("%s", (file) => {
    const expected = JSON.parse(readFileSync(new URL(file, expectedDir), "utf8")) as {
      fixture: string
      format: BuiltInWireFormat
      model?: string
      stopReason: string
      rawStopReason?: string
      usage: unknown
      content: unknown
    }
    const text = readFileSync(new URL(expected.fixture, streams), "utf8")
    const responses = assemble(
      decodeChunks(expected.format, [new TextEncoder().encode(toSse(expected.format, text))]),
      expected.model,
    )
    const response = responses[responses.length - 1]!
    expect(response.message.content).toEqual(expected.content)
    expect(response.usage).toEqual(expected.usage)
    expect(response.stopReason).toBe(expected.stopReason)
    expect(response.rawStopReason).toBe(expected.rawStopReason)
  })
})

describe("chunking does not change the result", () => {
  const encoded = recorded.map((r) => ({ ...r, bytes: new TextEncoder().encode(toSse(r.format, r.text)) }))
  const whole = new Map(encoded.map((r) => [r.file, decodeChunks(r.format, [r.bytes])]))

  it("splits every recorded stream at arbitrary offsets (property)", () => {
    for (const r of encoded) {
      fc.assert(
        fc.property(fc.array(fc.nat({ max: r.bytes.length }), { maxLength: 40 }), (cuts) => {
          expect(decodeChunks(r.format, splitAt(r.bytes, cuts))).toEqual(whole.get(r.file))
        }),
        { numRuns: 25 },
      )
    }
  })

  it("splits a few small streams at every single offset, and into single bytes", () => {
    const small = [
      "anthropic-clear-thinking.1.chunks.txt",
      "spliced-message-start.chunks.txt",
      "google-text.chunks.txt",
    ]
    for (const r of encoded.filter((e) => small.includes(e.file))) {
      const expected = whole.get(r.file)
      for (let i = 0; i <= r.bytes.length; i++) expect(decodeChunks(r.format, splitAt(r.bytes, [i]))).toEqual(expected)
      const bytes = Array.from({ length: r.bytes.length }, (_, i) => r.bytes.subarray(i, i + 1))
      expect(decodeChunks(r.format, bytes)).toEqual(expected)
    }
  })

  it("splits the hand-written streams (CRLF, comments, errors) at every offset", () => {
    const files: [BuiltInWireFormat, string][] = [
      ["anthropic", "anthropic-crlf-redacted.sse"],
      ["anthropic", "anthropic-error-mid-stream.sse"],
      ["openai-chat", "openai-chat-tool-calls.sse"],
      ["openai-responses", "openai-responses-incomplete.sse"],
      ["gemini", "gemini-error-after-call.sse"],
    ]
    for (const [format, file] of files) {
      const bytes = readFileSync(new URL(file, handWritten))
      const expected = decodeChunks(format, [bytes])
      expect(
        expected.filter((e) => e.type === "stop"),
        file,
      ).toHaveLength(1)
      for (let i = 0; i <= bytes.length; i++)
        expect(decodeChunks(format, splitAt(bytes, [i])), `${file} @${i}`).toEqual(expected)
    }
  })

  it("splits inside multi-byte UTF-8 characters", () => {
    const sse = readFileSync(new URL("anthropic-crlf-redacted.sse", handWritten))
    const expected = decodeChunks("anthropic", [sse])
    const text = assemble(expected)[0]!.message.content.find((b) => b.type === "text")
    expect(text).toEqual({ type: "text", text: "Grüße 👋 — 你好. Reading the file now." })
    // Offsets of every byte that continues a multi-byte character.
    const inside = [...sse.keys()].filter((i) => (sse[i]! & 0xc0) === 0x80)
    expect(inside.length).toBeGreaterThan(10)
    for (const i of inside) expect(decodeChunks("anthropic", splitAt(sse, [i]))).toEqual(expected)
  })
})

describe("over real HTTP, through fetch", () => {
  let server: Server
  let base = ""
  /** Paths: /<format>/<file> replays a recording in small chunks; /reset/<format>/<file> drops the socket half-way. */
  beforeAll(async () => {
    server = createServer((req, res) => {
      const [, mode, format, file] = /^\/(replay|reset)\/([^/]+)\/(.+)$/.exec(req.url ?? "") ?? []
      const r = recorded.find((x) => x.format === format && x.file === file)
      if (!r || !mode) {
        res.writeHead(404).end()
        return
      }
      const bytes = Buffer.from(toSse(r.format, r.text))
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
      const stop = mode === "reset" ? Math.floor(bytes.length / 2) : bytes.length
      let at = 0
      const step = () => {
        if (at >= stop) {
          if (mode === "reset") res.socket?.destroy()
          else res.end()
          return
        }
        const next = Math.min(stop, at + 97)
        res.write(bytes.subarray(at, next))
        at = next
        setImmediate(step)
      }
      step()
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  it("decodes every recording served as a real SSE response", async () => {
    for (const r of recorded) {
      const res = await fetch(`${base}/replay/${r.format}/${r.file}`)
      expect(res.headers.get("content-type")).toBe("text/event-stream")
      const viaHttp = await decodeResponses(r.format, res.body!, { ts: 1_700_000_000_000 })
      const local = assemble(decodeChunks(r.format, [new TextEncoder().encode(toSse(r.format, r.text))]))
      expect(
        viaHttp.map((x) => x.message),
        r.file,
      ).toEqual(local.map((x) => x.message))
      expect(viaHttp[0]!.stats!.bytes).toBe(Buffer.byteLength(toSse(r.format, r.text)))
    }
  })

  it("releases the body when the consumer stops early", async () => {
    let closed!: () => void
    const gone = new Promise<void>((resolve) => {
      closed = resolve
    })
    const endless = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" })
      const timer = setInterval(() => res.write('data: {"type":"ping"}\n\n'), 5)
      res.on("close", () => {
        clearInterval(timer)
        closed()
      })
      res.write(
        'data: {"type":"message_start","message":{"id":"m","model":"x","usage":{"input_tokens":1,"output_tokens":1}}}\n\n',
      )
    })
    await new Promise<void>((resolve) => endless.listen(0, "127.0.0.1", resolve))
    const res = await fetch(`http://127.0.0.1:${(endless.address() as AddressInfo).port}/`)
    for await (const event of decodeStream("anthropic", res.body!)) {
      expect(event.type).toBe("start")
      break
    }
    await gone
    await new Promise<void>((resolve) => endless.close(() => resolve()))
  })

  it("keeps the partial message when the connection drops mid-stream", async () => {
    const res = await fetch(`${base}/reset/anthropic/anthropic-json-tool.2.chunks.txt`)
    const events: StreamEvent[] = []
    for await (const e of decodeStream("anthropic", res.body!)) events.push(e)
    const errors = events.filter((e) => e.type === "error")
    expect(errors[0]).toMatchObject({ kind: "network" })
    expect(events[events.length - 1]).toEqual({ type: "stop", reason: "error" })
    const res2 = await fetch(`${base}/reset/anthropic/anthropic-json-tool.2.chunks.txt`)
    const response = await decodeResponse("anthropic", res2.body!, { ts: 5 })
    expect(response.complete).toBe(false)
    expect(response.stopReason).toBe("error")
    expect(response.message.content[0]).toEqual({ type: "text", text: "I'll invoke the JSON response tool." })
  })
})

describe("against the replay server (another implementation of the five wire formats)", () => {
  const turn = {
    thinking: "Read first, then test.",
    text: "Reading — ünïcödé 🎉 <angle>.",
    toolCalls: [
      { name: "read_file", input: { path: "src/a.ts", start_line: 1 } },
      { name: "execute_command", input: { command: "npm test", requires_approval: false, timeout: 30 } },
    ],
    usage: { input: 120, output: 45, cacheRead: 1000, cacheWrite: 200, reasoning: 10 },
  }
  const schema = { type: "object", properties: {} }
  const names = ["read_file", "execute_command"]
  const requests: Record<BuiltInWireFormat, (native: boolean) => { path: string; body: Record<string, unknown> }> = {
    anthropic: (native) => ({
      path: "/v1/messages",
      body: {
        model: "claude-sonnet-4-5",
        max_tokens: 100,
        stream: true,
        messages: [{ role: "user", content: "go" }],
        ...(native ? { tools: names.map((name) => ({ name, input_schema: schema })) } : {}),
      },
    }),
    "openai-chat": (native) => ({
      path: "/v1/chat/completions",
      body: {
        model: "gpt-4.1",
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: "user", content: "go" }],
        ...(native
          ? { tools: names.map((name) => ({ type: "function", function: { name, parameters: schema } })) }
          : {}),
      },
    }),
    "openai-responses": (native) => ({
      path: "/v1/responses",
      body: {
        model: "gpt-5",
        stream: true,
        input: "go",
        ...(native ? { tools: names.map((name) => ({ type: "function", name, parameters: schema })) } : {}),
      },
    }),
    gemini: (native) => ({
      path: "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse",
      body: {
        contents: [{ role: "user", parts: [{ text: "go" }] }],
        ...(native ? { tools: [{ functionDeclarations: names.map((name) => ({ name, parameters: schema })) }] } : {}),
      },
    }),
    deepseek: (native) => ({
      path: "/v1/chat/completions",
      body: {
        model: "deepseek-reasoner",
        stream: true,
        messages: [{ role: "user", content: "go" }],
        ...(native
          ? { tools: names.map((name) => ({ type: "function", function: { name, parameters: schema } })) }
          : {}),
      },
    }),
  }
  const xmlTools: EnabledTool[] = [
    {
      name: "read_file",
      properties: { path: { type: "string" }, start_line: { type: "integer" } } as Record<string, JsonSchema>,
    },
    {
      name: "execute_command",
      properties: { command: { type: "string" }, requires_approval: { type: "boolean" }, timeout: { type: "number" } },
    },
  ].map(
    ({ name, properties }): EnabledTool => ({
      id: name,
      kind: "read" as const,
      name,
      description: "",
      snippet: "",
      guidelines: [],
      parameters: { type: "object" as const, properties, required: [] },
      examples: {},
    }),
  )

  async function serve(turns: unknown[]) {
    const { startReplayServer, parseReplayScript } = await import("../replay/index.js")
    return startReplayServer({ script: parseReplayScript({ version: 1, turns }) })
  }
  const post = (url: string, r: { path: string; body: unknown }) =>
    fetch(`${url}${r.path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(r.body),
    })

  it.each(FORMATS)("%s: native tool calls, text and usage come back as scripted", async (format) => {
    const server = await serve([turn])
    try {
      const res = await post(server.url, requests[format](true))
      expect(res.status).toBe(200)
      const answer = await decodeResponse(format, res.body!, { ts: 0 })
      expect(answer.complete).toBe(true)
      expect(answer.stopReason).toBe("tool_use")
      const content = answer.message.content
      expect(content.filter((b) => b.type === "text")).toEqual([{ type: "text", text: turn.text }])
      expect(content.flatMap((b) => (b.type === "tool_use" ? [{ name: b.name, input: b.input }] : []))).toEqual(
        turn.toolCalls,
      )
      // Formats without a cache-write figure count those tokens as input.
      const cacheWrite = format === "anthropic" ? 200 : 0
      expect(answer.usage).toMatchObject({ output: 45, cacheRead: 1000, cacheWrite, input: 320 - cacheWrite })
    } finally {
      await server.close()
    }
  })

  it.each(FORMATS)("%s: XML-dialect calls in the text come back as the same tool calls", async (format) => {
    const server = await serve([turn])
    try {
      const res = await post(server.url, requests[format](false))
      const { withXmlToolCalls } = await import("./xml-parser.js")
      const acc = new Accumulator({ ts: 0 })
      for await (const e of withXmlToolCalls(decodeStream(format, res.body!), { tools: xmlTools, turn: 1 })) acc.push(e)
      const [answer] = acc.finish()
      expect(answer!.stopReason).toBe("tool_use")
      expect(
        answer!.message.content.flatMap((b) => (b.type === "tool_use" ? [{ name: b.name, input: b.input }] : [])),
      ).toEqual(turn.toolCalls)
      expect(
        answer!.message.content.filter((b) => b.type === "text").map((b) => (b as { text: string }).text.trim()),
      ).toEqual([turn.text])
    } finally {
      await server.close()
    }
  })

  it.each(FORMATS)("%s: its faults classify, and a cut connection keeps the partial answer", async (format) => {
    const { classifyHttpError } = await import("./errors.js")
    const faults = [
      { kind: "rate-limit", retryAfter: 3 },
      { kind: "overloaded" },
      { kind: "context-overflow" },
      { kind: "server-error" },
      { kind: "disconnect" },
    ]
    const server = await serve([{ ...turn, faults }])
    try {
      const kinds: [string, number | undefined][] = []
      for (let i = 0; i < 4; i++) {
        const res = await post(server.url, requests[format](true))
        const error = classifyHttpError({ status: res.status, body: await res.text(), headers: res.headers })
        kinds.push([error.kind, error.retryAfterMs])
      }
      expect(kinds).toEqual([
        ["rate-limit", 3000],
        ["server", undefined],
        ["context-overflow", undefined],
        ["server", undefined],
      ])
      const cut = await post(server.url, requests[format](true))
      const answer = await decodeResponse(format, cut.body!, { ts: 0 })
      expect(answer.complete).toBe(false)
      expect(answer.stopReason).toBe("error")
      expect(answer.errors.map((e) => e.kind)).toContain(answer.errors[0]!.kind === "network" ? "network" : "truncated")
    } finally {
      await server.close()
    }
  })
})
