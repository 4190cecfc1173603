import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { deepseekFormat } from "../deepseek/index.js"
import { classifyHttpError, isContextOverflow, matchOverflow, OVERFLOW_MESSAGES } from "../errors.js"
import type { ErrorInput } from "../types.js"
import { chatOverflowMessage } from "./errors.js"
import { openAIChatFormat } from "./index.js"

const KINDS: ErrorInput["kind"][] = [
  "invalid-request",
  "context-overflow",
  "auth",
  "not-found",
  "rate-limit",
  "quota",
  "server",
  "network",
  "overloaded",
]

describe("Chat error answers", () => {
  it("uses OpenAI's statuses and types; DeepSeek answers an exhausted balance with 402", () => {
    const status = (m: typeof openAIChatFormat | typeof deepseekFormat) =>
      KINDS.map((kind) => m.encodeError({ kind, message: "x" }).status)
    expect(status(openAIChatFormat)).toEqual([400, 400, 401, 404, 429, 429, 500, 502, 503])
    expect(status(deepseekFormat)).toEqual([400, 400, 401, 404, 429, 402, 500, 502, 503])
    expect(openAIChatFormat.encodeError({ kind: "invalid-request", message: "bad", param: "tools[0]" })).toEqual({
      status: 400,
      headers: {},
      body: { error: { message: "bad", type: "invalid_request_error", param: "tools[0]", code: null } },
    })
  })

  it("is read back as the same kind by promptline's own classifier of provider errors", () => {
    for (const m of [openAIChatFormat, deepseekFormat])
      for (const kind of KINDS.filter((k) => k !== "not-found" && k !== "overloaded" && k !== "network")) {
        const answer = m.encodeError({ kind, message: kind === "context-overflow" ? "too long" : "it failed" })
        expect(classifyHttpError({ status: answer.status, body: JSON.stringify(answer.body) }).kind).toBe(kind)
      }
  })

  it("gives retry-after in whole seconds, rounded up, whenever a wait is known", () => {
    fc.assert(
      fc.property(fc.nat(600_000), fc.constantFrom<ErrorInput["kind"]>(...KINDS), (ms, kind) => {
        const answer = openAIChatFormat.encodeError({ kind, message: "x", retryAfterMs: ms })
        expect(answer.headers["retry-after"]).toBe(String(Math.ceil(ms / 1000)))
        const parsed = classifyHttpError({ status: answer.status, headers: answer.headers })
        expect(parsed.retryAfterMs).toBe(Math.ceil(ms / 1000) * 1000)
      }),
    )
    expect(openAIChatFormat.encodeError({ kind: "rate-limit", message: "x" }).headers).toEqual({})
  })

  it("says every provider's overflow the way OpenAI's clients recognize it, keeping the figures when named", () => {
    for (const { example } of OVERFLOW_MESSAGES) {
      for (const m of [openAIChatFormat, deepseekFormat]) {
        const body = m.encodeError({ kind: "context-overflow", message: example }).body as {
          error: { message: string; code: string }
        }
        expect(body.error.code).toBe("context_length_exceeded")
        expect(matchOverflow(body.error.message)).toBe("openai")
      }
    }
    expect(chatOverflowMessage("prompt is too long: 213462 tokens > 200000 maximum")).toBe(
      "This model's maximum context length is 200000 tokens. However, your messages resulted in 213462 tokens. Please reduce the length of the messages.",
    )
    expect(
      chatOverflowMessage(
        "The input token count (1196265) exceeds the maximum number of tokens allowed (1048576).",
        "deepseek",
      ),
    ).toBe(
      "This model's maximum context length is 1048576 tokens. However, you requested 1196265 tokens. Please reduce the length of the messages or completion.",
    )
    expect(isContextOverflow(chatOverflowMessage("Context size has been exceeded."))).toBe(true)
  })
})
