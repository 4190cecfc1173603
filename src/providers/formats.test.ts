import { describe, expect, it } from "vitest"
import { overheadOf } from "../history/tokens.js"
import { resolveModel } from "../models/resolve.js"
import { WIRE_FORMATS } from "../models/types.js"
import { toNativeTools } from "../tools/native.js"
import { decodeOptionsFor, decodeResponse, decodeStream, responseBodyEvents } from "./decode.js"
import { descriptorOf } from "./descriptors.js"
import { encodeRequest } from "./encode.js"
import { formatModule, missingModuleFields, WIRE_FORMAT_MODULES } from "./formats.js"
import type { StreamEvent } from "./stream.js"
import { type DummyBody, dummyFormat } from "./test-helpers/dummy-format.js"
import type { EncodeInput, WireFormatModule } from "./types.js"

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
      expect(WIRE_FORMAT_MODULES[format].overhead).toBe(overheadOf(format))
      expect(WIRE_FORMAT_MODULES[format].descriptor).toBe(descriptorOf(format))
      expect(WIRE_FORMAT_MODULES[format].nativeTools([])).toEqual(toNativeTools([], format))
    }
  })

  it("runs a format given as a module (not registered) through the dispatchers", async () => {
    const module = formatModule(dummyFormat)
    expect(missingModuleFields(module)).toEqual([])
    const model = resolveModel("gpt-5").model
    const input: EncodeInput = {
      prompt: { text: "be brief", tools: [] },
      messages: [{ id: "m1", role: "user", content: [{ type: "text", text: "hi" }], ts: 0 }],
      model,
    }
    const encoded = encodeRequest(module as WireFormatModule<DummyBody>, input)
    expect(encoded.body).toEqual({
      model: "gpt-5",
      system: "be brief",
      turns: [{ who: "user", say: "hi" }],
      stream: true,
      max: model.maxOutput,
    })
    expect(decodeOptionsFor(module, { stream: true })).toEqual({})
    expect(responseBodyEvents(module, { say: "whole", usage: { in: 3, out: 1 } })).toEqual([
      { type: "text", delta: "whole" },
      { type: "usage", input: 3, output: 1, cacheRead: 0, cacheWrite: 0 },
      { type: "stop", reason: "end" },
    ])
    const events: StreamEvent[] = []
    for await (const e of decodeStream(
      module,
      bytes('data: {"say":"he"}\n\ndata: {"say":"llo"}\n\ndata: {"end":"done"}\n\n'),
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
