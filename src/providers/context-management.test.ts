import { describe, expect, it } from "vitest"
import { fixtureModel } from "../../test/fixtures/providers/requests/load.js"
import type { Message } from "../history/message.js"
import { ContextManagementError, type ContextManagementOptions } from "./context-management.js"
import { decodeStream } from "./decode.js"
import { encodeRequest } from "./encode.js"
import { formatModule } from "./formats.js"
import type { StreamEvent } from "./stream.js"

const prompt = { text: "sys", tools: [] }
const messages: Message[] = [{ id: "u", role: "user", ts: 0, content: [{ type: "text", text: "hi" }] }]
const encode = (
  format: "anthropic" | "openai-responses" | "openai-chat",
  contextManagement: ContextManagementOptions,
) => encodeRequest(format, { prompt, messages, model: fixtureModel(format), options: { contextManagement } })

describe("context-management options", () => {
  const bad: [ContextManagementOptions, string][] = [
    [{ compaction: { trigger: 10_000 } }, "contextManagement.compaction.trigger"],
    [{ clearToolUses: { keep: -1 } }, "contextManagement.clearToolUses.keep"],
    [{ clearToolUses: { excludeTools: [""] } }, "contextManagement.clearToolUses.excludeTools"],
    [{ clearThinking: { keep: 0 } }, "contextManagement.clearThinking.keep"],
    [{ compaction: { instructions: "  " } }, "contextManagement.compaction.instructions"],
    [{ clearEverything: true } as unknown as ContextManagementOptions, "contextManagement.clearEverything"],
  ]
  for (const [options, option] of bad)
    it(`refuses ${option} with a typed error naming it`, () => {
      let error: unknown
      try {
        encode("anthropic", options)
      } catch (e) {
        error = e
      }
      expect(error).toBeInstanceOf(ContextManagementError)
      expect((error as ContextManagementError).code).toBe("context-management-invalid")
      expect((error as ContextManagementError).option).toBe(option)
    })

  it("Anthropic: the edits, thinking first, and the beta headers each needs", () => {
    const r = encode("anthropic", {
      clearToolUses: { trigger: 80_000, clearToolInputs: ["bash"] },
      clearThinking: { keep: "all" },
      compaction: true,
    })
    const body = r.body as { context_management: unknown }
    expect(body.context_management).toEqual({
      edits: [
        { type: "clear_thinking_20251015", keep: "all" },
        {
          type: "clear_tool_uses_20250919",
          trigger: { type: "input_tokens", value: 80_000 },
          clear_tool_inputs: ["bash"],
        },
        { type: "compact_20260112" },
      ],
    })
    expect(r.headers).toEqual({ "anthropic-beta": "context-management-2025-06-27,compact-2026-01-12" })
    expect(encode("anthropic", { compaction: { trigger: 60_000 } }).headers).toEqual({
      "anthropic-beta": "compact-2026-01-12",
    })
  })

  it("OpenAI Responses: a compaction threshold; what it has no form for is a warning", () => {
    const r = encode("openai-responses", { compaction: { trigger: 2_000 }, clearToolUses: true })
    expect((r.body as { context_management: unknown }).context_management).toEqual([
      { type: "compaction", compact_threshold: 2_000 },
    ])
    expect(r.diagnostics.map((d) => d.code)).toContain("context-management-unsupported")
    // A threshold under Anthropic's minimum is fine for OpenAI.
    expect(r.headers).toBeUndefined()
  })
})

describe("compaction items in answers: stream encode, then decode", () => {
  for (const format of ["anthropic", "openai-responses"] as const) {
    it(`${format}: the item and the applied edits come back as they went`, async () => {
      const compaction: StreamEvent = {
        type: "compaction",
        format,
        payload: format === "anthropic" ? JSON.stringify({ encrypted_content: "e", signature: "s" }) : "enc",
        ...(format === "anthropic" ? { summary: "What happened so far." } : { id: "cmp_1" }),
      }
      const edits: StreamEvent = {
        type: "context_edits",
        edits: [{ type: "clear_tool_uses_20250919", clearedInputTokens: 5, clearedToolUses: 1 }],
      }
      const events: StreamEvent[] = [
        { type: "start", id: "r1", model: "m" },
        compaction,
        { type: "text", delta: "ok", index: 1 },
        edits,
        { type: "usage", input: 1, output: 1, cacheRead: 0, cacheWrite: 0 },
        { type: "stop", reason: "end" },
      ]
      const encoder = formatModule(format).createStreamEncoder({ model: "m", id: "r1", created: 0 })
      const sse = events.map((e) => encoder.push(e)).join("") + encoder.end()
      const body = (async function* () {
        yield new TextEncoder().encode(sse)
      })()
      const decoded: StreamEvent[] = []
      for await (const e of decodeStream(format, body)) decoded.push(e)
      expect(decoded).toContainEqual(compaction)
      if (format === "anthropic") expect(decoded).toContainEqual(edits)
    })
  }
})
