import { describe, expect, it } from "vitest"
import { classifyHttpError, matchOverflow, OVERFLOW_MESSAGES } from "../errors.js"
import { anthropicOverflowMessage, encodeAnthropicError } from "./errors.js"

describe("Anthropic error answers", () => {
  it("puts each kind in the API's envelope with the API's status", () => {
    const cases = [
      ["invalid-request", 400, "invalid_request_error"],
      ["auth", 401, "authentication_error"],
      ["quota", 402, "billing_error"],
      ["not-found", 404, "not_found_error"],
      ["rate-limit", 429, "rate_limit_error"],
      ["server", 500, "api_error"],
      ["network", 502, "api_error"],
      ["overloaded", 529, "overloaded_error"],
    ] as const
    for (const [kind, status, type] of cases) {
      const answer = encodeAnthropicError({ kind, message: "what happened" })
      expect(answer, kind).toEqual({
        status,
        headers: {},
        body: { type: "error", error: { type, message: "what happened" } },
      })
      // Our own classifier reads the answer back as the same kind; a client has no kind of its own for a page not
      // found, an overload, or the gateway failing to reach its upstream.
      const back = classifyHttpError({ status, body: JSON.stringify(answer.body) }).kind
      const expected =
        kind === "not-found" ? "invalid-request" : kind === "overloaded" || kind === "network" ? "server" : kind
      expect(back, kind).toBe(expected)
    }
  })

  it("asks for the wait in whole seconds, rounded up", () => {
    expect(encodeAnthropicError({ kind: "rate-limit", message: "slow", retryAfterMs: 2500 }).headers).toEqual({
      "retry-after": "3",
    })
    expect(encodeAnthropicError({ kind: "overloaded", message: "busy", retryAfterMs: 0 }).headers).toEqual({
      "retry-after": "0",
    })
  })

  it("words every provider's context overflow as Anthropic does, with the sizes when the message names them", () => {
    for (const { provider, example } of OVERFLOW_MESSAGES) {
      const answer = encodeAnthropicError({ kind: "context-overflow", message: example })
      expect(answer.status).toBe(400)
      const { type, message } = (answer.body as { error: { type: string; message: string } }).error
      expect(type).toBe("invalid_request_error")
      expect(message, provider).toMatch(/^prompt is too long: /)
      expect(matchOverflow(message), example).not.toBeUndefined()
    }
    expect(anthropicOverflowMessage(OVERFLOW_MESSAGES[1]!.example)).toBe(
      "prompt is too long: 209573 tokens > 200000 maximum",
    )
    expect(
      anthropicOverflowMessage(
        "This model's maximum context length is 128000 tokens. However, your messages resulted in 130412 tokens.",
      ),
    ).toBe("prompt is too long: 130412 tokens > 128000 maximum")
    expect(
      anthropicOverflowMessage(
        "The input token count (1196265) exceeds the maximum number of tokens allowed (1048576).",
      ),
    ).toBe("prompt is too long: 1196265 tokens > 1048576 maximum")
    expect(anthropicOverflowMessage("prompt is too long: 213462 tokens > 200000 maximum")).toBe(
      "prompt is too long: 213462 tokens > 200000 maximum",
    )
    expect(anthropicOverflowMessage("Context size has been exceeded.")).toBe(
      "prompt is too long: Context size has been exceeded.",
    )
  })
})
