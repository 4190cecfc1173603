import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { Accumulator } from "../accumulate.js"
import { decodePayloadLines, StreamDecoder } from "../decode.js"
import type { StreamEvent } from "../stream.js"
import { GeminiDecoder, geminiResponseEvents, geminiUsage, parseJsonPath } from "./decode.js"

const recorded = new URL("../../../test/fixtures/streams/gemini/", import.meta.url)
const handWritten = new URL("../../../test/fixtures/providers/streams/", import.meta.url)

function assemble(events: StreamEvent[], model = "gemini-3-pro-preview") {
  const acc = new Accumulator({ ts: 9, model })
  for (const e of events) acc.push(e)
  return acc.finish()[0]!
}
const decodeFile = (file: string) => decodePayloadLines("gemini", readFileSync(new URL(file, recorded), "utf8"))

describe("Gemini decoder", () => {
  it("builds streamed arguments from jsonPath pieces, nested objects and arrays included", () => {
    const response = assemble(decodeFile("google-vertex-stream-tool-call-arguments-nested.1.chunks.txt").events)
    const call = response.message.content[0] as {
      input: { recipe: { ingredients: unknown[]; steps: string[]; name: string } }
    }
    expect(call.input.recipe.name).toBe("Lasagna")
    expect(call.input.recipe.ingredients).toHaveLength(10)
    expect(call.input.recipe.ingredients[0]).toEqual({ amount: "16 oz", name: "Lasagna noodles" })
    // A string streamed in two pieces is joined.
    expect(call.input.recipe.steps[4]).toBe("In a 9x13 baking dish, spread a thin layer of meat sauce.")
    expect(call.input.recipe.steps[1]).toBe(
      "Cook lasagna noodles according to package directions, drain and set aside.",
    )
  })

  it("ends a streamed call at a part without willContinue (no terminal empty functionCall)", () => {
    const response = assemble(
      decodeFile("google-stream-tool-call-array-arguments-missing-terminal-function-call.chunks.txt").events,
    )
    expect(response.message.content).toHaveLength(1)
    expect((response.message.content[0] as { input: unknown }).input).toEqual({
      operations: [
        { action: "add", description: "Fresh red apple", itemid: "apple_001", price: 0.5 },
        { action: "add", description: "Ripe yellow banana", itemid: "banana_001", price: 0.3 },
      ],
    })
    expect(response.stopReason).toBe("tool_use")
  })

  it("keeps thought text as thinking and each call's signature on its call", () => {
    const response = assemble(decodeFile("google-stream-no-args-tool-call.chunks.txt").events, "gemini-3-flash-preview")
    expect(
      response.message.content.map((b) => (b.type === "tool_use" ? `${b.name}:${JSON.stringify(b.input)}` : b.type)),
    ).toEqual([
      "thinking",
      "read_theme:{}",
      'read_screen:{"id":"A"}',
      'read_screen:{"id":"B"}',
      'read_screen:{"id":"C"}',
    ])
    const [, first, second] = response.message.content as { signature?: string; model?: string }[]
    expect(first!.signature?.startsWith("AY89a18a8/")).toBe(true)
    expect(first!.model).toBe("gemini-3-flash-preview")
    expect(second!.signature).toBeUndefined()
  })

  it("puts a signature that came on a text part into an empty thinking block before that text", () => {
    const body = JSON.parse(readFileSync(new URL("google-text.json", recorded), "utf8"))
    const response = assemble(geminiResponseEvents(body))
    expect(response.message.content).toEqual([
      {
        type: "thinking",
        text: "",
        signature: body.candidates[0].content.parts[0].thoughtSignature,
        model: "gemini-3-pro-preview",
      },
      { type: "text", text: body.candidates[0].content.parts[0].text },
    ])
  })

  it("reads CRLF-framed SSE and reports an error chunk after a complete call", () => {
    const decoder = new StreamDecoder("gemini")
    const events: StreamEvent[] = []
    decoder.feed(readFileSync(new URL("gemini-error-after-call.sse", handWritten)), events)
    decoder.end(events)
    const response = assemble(events, "gemini-2.5-pro")
    expect(response.message.content).toEqual([
      { type: "thinking", text: "Checking the logs.", model: "gemini-2.5-pro" },
      {
        type: "tool_use",
        id: "gem_hand_1_0",
        name: "execute_command",
        input: { command: "ls -la", requires_approval: false },
        signature: "c2lnLWhhbmQ=",
        model: "gemini-2.5-pro",
      },
    ])
    expect(response.errors).toEqual([
      { type: "error", kind: "server", message: "UNAVAILABLE: The model is overloaded. Please try again later." },
    ])
    expect(response.stopReason).toBe("error")
  })

  it("restarts when another response's chunk arrives before this one finished (a spliced stream)", () => {
    const lines = readFileSync(new URL("google-text.chunks.txt", recorded), "utf8").split("\n").filter(Boolean)
    const whole = assemble(decodePayloadLines("gemini", lines.join("\n")).events)
    const again = lines.map((l) => l.replace('"responseId":"', '"responseId":"retry-'))
    const { events, stats } = decodePayloadLines("gemini", [lines[0]!, ...again].join("\n"))
    expect(stats.restarts).toBe(1)
    expect(events.filter((e) => e.type === "start").map((e) => (e as { id?: string }).id)).toEqual([
      "bH6LaZW8Fp_3nsEPqtaSwQ4",
      "retry-bH6LaZW8Fp_3nsEPqtaSwQ4",
    ])
    const spliced = assemble(events)
    expect([spliced.message.content, spliced.complete]).toEqual([whole.message.content, true])
  })

  it("normalizes usage: cached tokens out of input, thoughts into output", () => {
    expect(
      geminiUsage({
        promptTokenCount: 1000,
        cachedContentTokenCount: 600,
        candidatesTokenCount: 20,
        thoughtsTokenCount: 80,
        toolUsePromptTokenCount: 5,
      }),
    ).toEqual({ input: 405, output: 100, cacheRead: 600, cacheWrite: 0, reasoning: 80 })
  })

  it("refuses jsonPaths through __proto__, constructor or prototype and keeps the entry as an error", () => {
    const decoder = new GeminiDecoder()
    const out: StreamEvent[] = []
    const entries = [
      { jsonPath: "$.__proto__.polluted", stringValue: "yes" },
      { jsonPath: "$['__proto__']['polluted']", stringValue: "yes" },
      { jsonPath: "$.constructor.prototype.polluted", stringValue: "yes" },
      { jsonPath: "$.path", stringValue: "a.txt" },
    ]
    decoder.push(
      {
        responseId: "r",
        candidates: [{ content: { parts: [{ functionCall: { name: "read_file", partialArgs: entries } }] } }],
      },
      out,
    )
    decoder.push({ candidates: [{ finishReason: "STOP" }] }, out)
    decoder.end(out)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(Object.hasOwn(Object.prototype, "polluted")).toBe(false)
    const errors = out.filter((e) => e.type === "error")
    expect(errors.map((e) => [e.kind, e.toolCallId, e.raw])).toEqual(
      entries.slice(0, 3).map((entry) => ["invalid-arguments", "r_0", JSON.stringify(entry)]),
    )
    const end = out.find((e) => e.type === "tool_call_end")
    expect(end).toMatchObject({ input: { path: "a.txt" } })
    expect(Object.getPrototypeOf((end as { input: object }).input)).toBe(Object.prototype)
  })

  it("writes a key an object only inherits as the object's own", () => {
    const events = geminiResponseEvents({
      candidates: [
        {
          content: {
            parts: [{ functionCall: { name: "t", partialArgs: [{ jsonPath: "$.toString.x", numberValue: 1 }] } }],
          },
          finishReason: "STOP",
        },
      ],
    })
    expect(events.find((e) => e.type === "tool_call_end")).toMatchObject({ input: { toString: { x: 1 } } })
  })

  it("parses jsonPaths", () => {
    expect(parseJsonPath("$.a.b[2].c")).toEqual(["a", "b", 2, "c"])
    expect(parseJsonPath("$['odd key'][0]")).toEqual(["odd key", 0])
    expect(parseJsonPath("a.b")).toBeUndefined()
    expect(parseJsonPath("$.a[")).toBeUndefined()
  })

  it("reports a stream without a finish reason as truncated", () => {
    const text = readFileSync(new URL("google-stream-tool-call-arguments.chunks.txt", recorded), "utf8")
      .split("\n")
      .slice(0, 2)
      .join("\n")
    const { events } = decodePayloadLines("gemini", text)
    expect(events.filter((e) => e.type === "error").map((e) => (e as { kind?: string }).kind)).toEqual([
      "partial-call",
      "truncated",
    ])
  })

  it("stops with refusal when the prompt itself was blocked", () => {
    const body = { promptFeedback: { blockReason: "OTHER" }, usageMetadata: { promptTokenCount: 12 }, responseId: "r" }
    const response = assemble(geminiResponseEvents(body))
    expect(response.stopReason).toBe("refusal")
    expect(response.rawStopReason).toBe("OTHER")
    expect(response.message.content).toEqual([])
  })

  describe("finish reasons and errors keep the provider's code and message", () => {
    const text = readFileSync(new URL("google-text.chunks.txt", recorded), "utf8")
    /** The recording with its final finishReason replaced (and a finishMessage when given). */
    const finishingWith = (reason: string, message?: string) =>
      assemble(
        decodePayloadLines(
          "gemini",
          text.replace(
            '"finishReason":"STOP"',
            `"finishReason":"${reason}"${message ? `,"finishMessage":${JSON.stringify(message)}` : ""}`,
          ),
        ).events,
      )

    it("MALFORMED_FUNCTION_CALL: stop error with a retryable error that keeps the finishMessage", () => {
      const response = finishingWith("MALFORMED_FUNCTION_CALL", "Malformed function call: print(default_api.read(")
      expect(response.complete).toBe(false)
      expect(response.stopReason).toBe("error")
      expect(response.rawStopReason).toBe("MALFORMED_FUNCTION_CALL")
      expect(response.errors).toEqual([
        {
          type: "error",
          kind: "server",
          message: "MALFORMED_FUNCTION_CALL: Malformed function call: print(default_api.read(",
        },
      ])
    })

    it.each([
      ["UNEXPECTED_TOOL_CALL", "invalid-request"],
      ["TOO_MANY_TOOL_CALLS", "invalid-request"],
      ["OTHER", "server"],
      ["FINISH_REASON_UNSPECIFIED", "server"],
      ["A_REASON_ADDED_LATER", "server"],
    ])("%s without a finishMessage: stop error, kind %s, our explanation", (reason, kind) => {
      const response = finishingWith(reason)
      expect(response.stopReason).toBe("error")
      expect(response.errors).toHaveLength(1)
      expect(response.errors[0]).toMatchObject({ kind })
      expect(response.errors[0]!.message).toMatch(new RegExp(`^${reason}: .{10,}`))
    })

    it.each(["SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY", "LANGUAGE"])(
      "%s is a complete refusal whose finishMessage is kept",
      (reason) => {
        const response = finishingWith(reason, "The response was blocked.")
        expect(response.complete).toBe(true)
        expect(response.stopReason).toBe("refusal")
        expect(response.stopMessage).toBe("The response was blocked.")
        expect(response.errors).toEqual([])
      },
    )

    it("an error chunk with RetryInfo gives its wait", () => {
      const lines = text.split("\n").filter(Boolean)
      const error = {
        error: {
          code: 429,
          message: "Resource has been exhausted (e.g. check quota).",
          status: "RESOURCE_EXHAUSTED",
          details: [
            { "@type": "type.googleapis.com/google.rpc.QuotaFailure", violations: [] },
            { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "13s" },
          ],
        },
      }
      const response = assemble(decodePayloadLines("gemini", [lines[0], JSON.stringify(error)].join("\n")).events)
      expect(response.stopReason).toBe("error")
      expect(response.errors).toEqual([
        {
          type: "error",
          kind: "rate-limit",
          message: "RESOURCE_EXHAUSTED: Resource has been exhausted (e.g. check quota).",
          retryAfterMs: 13_000,
        },
      ])
    })
  })
})
