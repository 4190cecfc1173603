import { describe, expect, it } from "vitest"
import { CACHE_SCHEMES } from "../cache/schemes.js"
import { OVERHEADS } from "../history/tokens.js"
import { resolveModel } from "../models/resolve.js"
import { WIRE_FORMATS } from "../models/types.js"
import { toNativeTools } from "../tools/native.js"
import { decodeOptionsFor, decodeResponse, decodeStream, responseBodyEvents } from "./decode.js"
import { descriptorOf } from "./descriptors.js"
import { encodeRequest } from "./encode.js"
import { formatModule, missingModuleFields, WIRE_FORMAT_MODULES } from "./formats.js"
import { emptyStats, type PayloadDecoder, type StreamEvent } from "./stream.js"
import type { EncodeInput, WireFormatModule } from "./types.js"

/** A sixth wire format, defined only here: one JSON payload `{ say }` per SSE event, a `{ done }` payload at the end. */
interface DummyBody {
  instructions: string
  turns: string[]
}

class DummyDecoder implements PayloadDecoder {
  readonly stats = emptyStats()
  #ended = false
  push(payload: unknown, out: StreamEvent[]): void {
    this.stats.payloads++
    const p = payload as { say?: string; done?: boolean }
    if (typeof p.say === "string") out.push({ type: "text", delta: p.say })
    if (p.done === true && !this.#ended) {
      this.#ended = true
      out.push({ type: "stop", reason: "end" })
    }
  }
  pushRaw(): void {
    this.stats.malformed++
  }
  end(out: StreamEvent[]): void {
    if (!this.#ended) out.push({ type: "error", kind: "truncated", message: "the dummy stream ended early" })
  }
  fail(error: Extract<StreamEvent, { type: "error" }>, out: StreamEvent[]): void {
    out.push(error)
  }
}

const dummyFormat: WireFormatModule<DummyBody, "openai-chat"> = {
  format: "dummy",
  speaks: "openai-chat",
  encode: (input) => ({
    body: { instructions: input.prompt.text, turns: input.messages.map((m) => `${m.role}: ${m.id}`) },
    diagnostics: [],
    breakpoints: [],
  }),
  createDecoder: () => new DummyDecoder(),
  responseEvents: (body) => [
    { type: "text", delta: String((body as { say: string }).say) },
    { type: "stop", reason: "end" },
  ],
  decodeOptions: (body) => ((body as { usage?: boolean }).usage === true ? { expectUsage: true } : {}),
  nativeTools: (tools) => tools.map((t) => ({ dummy: t.name })),
  overhead: { message: 1, request: 1, tool: 1, toolsPreamble: 0, toolBlock: 1, image: 1 },
  decodeRequest: (body) => {
    const { instructions, turns } = body as DummyBody
    return {
      model: "dummy-model",
      prompt: { text: instructions, tools: [] },
      messages: turns.map((turn, i) => {
        const [role, text] = turn.split(": ") as ["user" | "assistant", string]
        return { id: `m${i + 1}`, role, content: [{ type: "text", text }], ts: 0 }
      }),
      options: {},
      unmodeled: [],
      sources: {},
      diagnostics: [],
    }
  },
  createStreamEncoder: () => ({
    push: (event) =>
      event.type === "text"
        ? `data: ${JSON.stringify({ say: event.delta })}\n\n`
        : event.type === "stop"
          ? 'data: {"done":true}\n\n'
          : "",
    end: () => "",
  }),
  encodeResponse: (events) => ({ say: events.map((e) => (e.type === "text" ? e.delta : "")).join("") }),
  encodeError: (error) => ({ status: 400, headers: {}, body: { dummyError: error.message } }),
  descriptor: {
    format: "dummy",
    speaks: "openai-chat",
    defaultFor: { providers: [] },
    nativeTools: "openai-chat",
    overhead: { message: 1, request: 1, tool: 1, toolsPreamble: 0, toolBlock: 1, image: 1 },
    cache: CACHE_SCHEMES["openai-chat"],
    endpoint: { path: "/dummy", auth: "bearer" },
    history: "messages",
  },
}

/** The table with the dummy added, as a sixth line would add it. */
const TABLE: Readonly<Record<string, WireFormatModule>> = { ...WIRE_FORMAT_MODULES, dummy: dummyFormat }

async function* bytes(text: string): AsyncGenerator<Uint8Array> {
  yield new TextEncoder().encode(text)
}

describe("the wire format table", () => {
  it("has a complete module for every name in WireFormat, under its own name", () => {
    expect(Object.keys(WIRE_FORMAT_MODULES).sort()).toEqual([...WIRE_FORMATS].sort())
    for (const format of WIRE_FORMATS) {
      const module = WIRE_FORMAT_MODULES[format]
      expect(module.format).toBe(format)
      expect(missingModuleFields(module)).toEqual([])
      // A format speaks its own shape or one of the formats in the table.
      expect(WIRE_FORMATS).toContain(module.speaks)
    }
  })

  it("names the fields a module lacks", () => {
    const { overhead: _, ...partial } = dummyFormat
    expect(missingModuleFields(partial)).toEqual(["overhead"])
    expect(missingModuleFields(dummyFormat)).toEqual([])
  })

  it("its modules agree with the per-layer tables they bring together", () => {
    for (const format of WIRE_FORMATS) {
      expect(WIRE_FORMAT_MODULES[format].overhead).toBe(OVERHEADS[format])
      expect(WIRE_FORMAT_MODULES[format].descriptor).toBe(descriptorOf(format))
      expect(WIRE_FORMAT_MODULES[format].nativeTools([])).toEqual(toNativeTools([], format))
    }
  })

  it("runs a sixth format registered beside the table through the dispatchers", async () => {
    const module = formatModule(TABLE.dummy!)
    expect(missingModuleFields(module)).toEqual([])
    const model = resolveModel("gpt-5").model
    const input: EncodeInput = {
      prompt: { text: "be brief", tools: [] },
      messages: [{ id: "m1", role: "user", content: [{ type: "text", text: "hi" }], ts: 0 }],
      model,
    }
    const encoded = encodeRequest(module as WireFormatModule<DummyBody>, input)
    expect(encoded.body).toEqual({ instructions: "be brief", turns: ["user: m1"] })
    expect(decodeOptionsFor(module, { usage: true })).toEqual({ expectUsage: true })
    expect(responseBodyEvents(module, { say: "whole" })).toEqual([
      { type: "text", delta: "whole" },
      { type: "stop", reason: "end" },
    ])
    const events: StreamEvent[] = []
    for await (const e of decodeStream(
      module,
      bytes('data: {"say":"he"}\n\ndata: {"say":"llo"}\n\ndata: {"done":true}\n\n'),
    ))
      events.push(e)
    expect(events).toEqual([
      { type: "text", delta: "he" },
      { type: "text", delta: "llo" },
      { type: "stop", reason: "end" },
    ])
    const truncated = await decodeResponse(module, bytes('data: {"say":"he"}\n\n'), { ts: 0 })
    expect(truncated.errors.map((e) => e.kind)).toEqual(["truncated"])
    // The serving half: the request read back, and the answer written as the decoder reads it.
    expect(module.decodeRequest(encoded.body).messages.map((m) => m.id)).toEqual(["m1"])
    const writer = module.createStreamEncoder({ model: "dummy-model" })
    const written = [...events.map((e) => writer.push(e)), writer.end()].join("")
    const again: StreamEvent[] = []
    for await (const e of decodeStream(module, bytes(written))) again.push(e)
    expect(again).toEqual(events)
  })

  it("dispatches a built-in format by name to its module", () => {
    const model = resolveModel("claude-sonnet-4-5").model
    const input: EncodeInput = {
      prompt: { text: "sys", tools: [] },
      messages: [{ id: "m1", role: "user", content: [{ type: "text", text: "hi" }], ts: 0 }],
      model,
    }
    expect(encodeRequest("anthropic", input)).toEqual(WIRE_FORMAT_MODULES.anthropic.encode(input))
    expect(decodeOptionsFor("deepseek", { stream_options: { include_usage: true } })).toEqual({ expectUsage: true })
    expect(decodeOptionsFor("anthropic", { stream_options: { include_usage: true } })).toEqual({})
  })
})
