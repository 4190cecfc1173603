import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { Accumulator } from "../accumulate.js"
import { decodePayloadLines } from "../decode.js"
import type { StreamEvent } from "../stream.js"
import { deepseekResponseEvents } from "./decode.js"

const recorded = new URL("../../../test/fixtures/streams/deepseek/", import.meta.url)

function assemble(events: StreamEvent[]) {
  const acc = new Accumulator({ ts: 1, model: "deepseek-reasoner" })
  for (const e of events) acc.push(e)
  return acc.finish()[0]!
}

describe("DeepSeek decoder", () => {
  it("reads reasoning_content as thinking and cache hits/misses as cache read and input", () => {
    const { events } = decodePayloadLines(
      "deepseek",
      readFileSync(new URL("deepseek-reasoning.chunks.txt", recorded), "utf8"),
    )
    const response = assemble(events)
    expect(response.message.content.map((b) => b.type)).toEqual(["thinking", "text"])
    expect(response.message.content[0]).toMatchObject({ type: "thinking", model: "deepseek-reasoner" })
    expect(response.message.content[1]).toEqual({ type: "text", text: 'The word "strawberry" contains three "r"s.' })
    expect(response.usage).toEqual({ input: 18, output: 219, cacheRead: 0, cacheWrite: 0, reasoning: 205 })
  })

  it("maps a cut-short generation (insufficient_system_resource) to an error stop", () => {
    const lines = [
      '{"id":"d1","model":"deepseek-chat","choices":[{"index":0,"delta":{"content":"Par"}}]}',
      '{"id":"d1","model":"deepseek-chat","choices":[{"index":0,"delta":{},"finish_reason":"insufficient_system_resource"}]}',
    ]
    const response = assemble(decodePayloadLines("deepseek", lines.join("\n")).events)
    expect(response.stopReason).toBe("error")
    expect(response.rawStopReason).toBe("insufficient_system_resource")
    expect(response.complete).toBe(false)
    expect(response.errors).toEqual([
      {
        type: "error",
        kind: "server",
        message:
          "insufficient_system_resource: DeepSeek ran short of resources and cut the generation off; the answer is incomplete",
      },
    ])
  })

  it("keeps the error of a recorded stream that ends with insufficient_system_resource", () => {
    const text = readFileSync(new URL("deepseek-text.chunks.txt", recorded), "utf8").replace(
      '"finish_reason":"length"',
      '"finish_reason":"insufficient_system_resource"',
    )
    const response = assemble(decodePayloadLines("deepseek", text, { expectUsage: true }).events)
    expect(response.stopReason).toBe("error")
    expect(response.errors.map((e) => [e.kind, e.message.split(":")[0]])).toEqual([
      ["server", "insufficient_system_resource"],
    ])
    expect(response.usage.output).toBe(400)
  })

  it("decodes the non-streamed bodies with the same usage rules", () => {
    const body = JSON.parse(readFileSync(new URL("deepseek-tool-call.json", recorded), "utf8"))
    const response = assemble(deepseekResponseEvents(body))
    expect(response.usage).toEqual({ input: 19, output: 92, cacheRead: 320, cacheWrite: 0, reasoning: 48 })
    expect(response.message.content[1]).toEqual({
      type: "tool_use",
      id: "call_00_9V0vrf86Pc9aelHCJMZqnJBo",
      name: "weather",
      input: { location: "San Francisco" },
    })
  })
})
