import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { classifyHttpError, isContextOverflow, OVERFLOW_MESSAGES } from "../errors.js"
import type { ErrorInput } from "../types.js"
import { encodeGeminiError, geminiOverflowMessage } from "./errors.js"

const GEMINI_OVERFLOW = OVERFLOW_MESSAGES.find((m) => m.provider === "gemini")!.pattern

/** The kind promptline's own classifier reads back from an error answer (not-found is a bad request to it). */
const READ_BACK: Record<ErrorInput["kind"], string> = {
  "context-overflow": "context-overflow",
  "invalid-request": "invalid-request",
  auth: "auth",
  "not-found": "invalid-request",
  "rate-limit": "rate-limit",
  quota: "rate-limit",
  server: "server",
  network: "server",
  overloaded: "server",
}

describe("Gemini error answers", () => {
  it("writes Google's {error: {code, message, status}} with the HTTP status, and reads back as the same kind", () => {
    for (const kind of Object.keys(READ_BACK) as ErrorInput["kind"][]) {
      const answer = encodeGeminiError({ kind, message: "Something went wrong." })
      const error = (answer.body as { error: { code: number; status: string } }).error
      expect(error.code).toBe(answer.status)
      expect(error.status).toMatch(/^[A-Z_]+$/)
      const read = classifyHttpError({ status: answer.status, body: JSON.stringify(answer.body) })
      expect([kind, read.kind]).toEqual([kind, READ_BACK[kind]])
    }
    expect(encodeGeminiError({ kind: "rate-limit", message: "x" })).toMatchObject({
      status: 429,
      headers: {},
      body: { error: { code: 429, status: "RESOURCE_EXHAUSTED" } },
    })
    expect(encodeGeminiError({ kind: "overloaded", message: "x" }).body).toMatchObject({
      error: { code: 503, status: "UNAVAILABLE" },
    })
  })

  it("names a wait as whole seconds in retry-after and as a RetryInfo detail", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 600_000 }), (ms) => {
        const answer = encodeGeminiError({
          kind: "rate-limit",
          message: "Resource has been exhausted.",
          retryAfterMs: ms,
        })
        const seconds = Math.ceil(ms / 1000)
        expect(answer.headers).toEqual({ "retry-after": String(seconds) })
        const read = classifyHttpError({
          status: answer.status,
          body: JSON.stringify(answer.body),
          headers: answer.headers,
        })
        expect(read.retryAfterMs).toBe(seconds * 1000)
        expect(classifyHttpError({ status: answer.status, body: JSON.stringify(answer.body) }).retryAfterMs).toBe(
          seconds * 1000,
        )
      }),
    )
  })

  it("says every provider's overflow in Gemini's words, so Gemini clients and promptline see an overflow", () => {
    for (const { example } of OVERFLOW_MESSAGES) {
      const message = geminiOverflowMessage(example)
      expect(GEMINI_OVERFLOW.test(message), message).toBe(true)
      const answer = encodeGeminiError({ kind: "context-overflow", message: example })
      expect(answer.status).toBe(400)
      expect(classifyHttpError({ status: 400, body: JSON.stringify(answer.body) }).kind).toBe("context-overflow")
    }
    expect(geminiOverflowMessage("prompt is too long: 213462 tokens > 200000 maximum")).toBe(
      "The input token count (213462) exceeds the maximum number of tokens allowed (200000).",
    )
    expect(
      geminiOverflowMessage(
        "This model's maximum context length is 128000 tokens. However, your messages resulted in 130412 tokens.",
      ),
    ).toBe("The input token count (130412) exceeds the maximum number of tokens allowed (128000).")
    const own = "The input token count (1196265) exceeds the maximum number of tokens allowed (1048576)."
    expect(geminiOverflowMessage(own)).toBe(own)
    expect(isContextOverflow(geminiOverflowMessage("too long"))).toBe(true)
  })
})
