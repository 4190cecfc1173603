import { describe, expect, it } from "vitest"
import {
  classifyHttpError,
  classifyStreamError,
  isContextOverflow,
  matchOverflow,
  networkError,
  OVERFLOW_MESSAGES,
  ProviderError,
  parseDuration,
  providerErrorFromEvent,
  retryAfterFrom,
} from "./errors.js"

describe("context overflow messages", () => {
  it("covers every provider the issue names", () => {
    const providers = new Set(OVERFLOW_MESSAGES.map((m) => m.provider))
    for (const p of [
      "anthropic",
      "openai",
      "gemini",
      "deepseek",
      "openrouter",
      "ollama",
      "llama.cpp",
      "vllm",
      "lmstudio",
    ])
      expect(providers.has(p), p).toBe(true)
  })

  it.each(OVERFLOW_MESSAGES.map((m) => [m.provider, m.example] as const))("%s: %s", (_, example) => {
    expect(isContextOverflow(example)).toBe(true)
    // Whatever the status, an overflow message classifies as context-overflow.
    for (const status of [400, 413, 500]) {
      const body = JSON.stringify({ error: { message: example, type: "invalid_request_error" } })
      expect(classifyHttpError({ status, body }).kind).toBe("context-overflow")
    }
  })

  it("does not call ordinary errors overflows", () => {
    for (const message of [
      "max_tokens: 100000 > 64000, which is the maximum allowed number of output tokens",
      "Invalid value for 'temperature'",
      "rate limit exceeded",
      "The model `gpt-9` does not exist",
    ])
      expect(matchOverflow(message), message).toBeUndefined()
  })
})

describe("classifyHttpError", () => {
  it("classifies by status and body", () => {
    const anthropicAuth = '{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}'
    expect(classifyHttpError({ status: 401, body: anthropicAuth })).toMatchObject({
      kind: "auth",
      code: "auth",
      retryable: false,
      message: "HTTP 401: invalid x-api-key",
    })
    expect(classifyHttpError({ status: 403, body: "forbidden" }).kind).toBe("auth")
    const geminiKey =
      '[{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT"}}]'
    expect(classifyHttpError({ status: 400, body: geminiKey }).kind).toBe("auth")
    expect(classifyHttpError({ status: 400, body: '{"error":{"message":"bad tool schema"}}' }).kind).toBe(
      "invalid-request",
    )
    expect(classifyHttpError({ status: 404, body: "" }).kind).toBe("invalid-request")
    expect(classifyHttpError({ status: 500, body: "oops" })).toMatchObject({ kind: "server", retryable: true })
    expect(
      classifyHttpError({
        status: 529,
        body: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
      }).kind,
    ).toBe("server")
    expect(classifyHttpError({ status: 413, body: '{"error":{"type":"request_too_large"}}' }).kind).toBe(
      "context-overflow",
    )
  })

  it("separates an exhausted quota (not worth retrying) from a rate limit", () => {
    const quota =
      '{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","code":"insufficient_quota"}}'
    expect(classifyHttpError({ status: 429, body: quota })).toMatchObject({ kind: "quota", retryable: false })
    expect(classifyHttpError({ status: 402, body: "Payment Required" }).kind).toBe("quota")
    expect(classifyHttpError({ status: 429, body: '{"error":{"type":"rate_limit_error"}}' })).toMatchObject({
      kind: "rate-limit",
      retryable: true,
    })
  })

  it("reads retry hints from headers and from Gemini's body", () => {
    expect(classifyHttpError({ status: 429, headers: { "Retry-After": "7" } }).retryAfterMs).toBe(7000)
    expect(classifyHttpError({ status: 429, headers: new Headers({ "retry-after-ms": "1500" }) }).retryAfterMs).toBe(
      1500,
    )
    const now = Date.parse("2026-01-01T00:00:00Z")
    expect(retryAfterFrom({ "retry-after": "Thu, 01 Jan 2026 00:00:30 GMT" }, now)).toBe(30_000)
    expect(retryAfterFrom({ "retry-after": "Thu, 01 Jan 2026 00:00:30 GMT" })).toBeUndefined()
    expect(retryAfterFrom({ "x-ratelimit-reset-requests": "1s", "x-ratelimit-reset-tokens": "6m0s" })).toBe(360_000)
    const gemini =
      '{"error":{"code":429,"message":"Resource has been exhausted","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"37s"}]}}'
    expect(classifyHttpError({ status: 429, body: gemini })).toMatchObject({ kind: "rate-limit", retryAfterMs: 37_000 })
  })

  it("parses Go-style durations", () => {
    expect(parseDuration("250ms")).toBe(250)
    expect(parseDuration("1h2m3.5s")).toBe(3_723_500)
    expect(parseDuration("soon")).toBeUndefined()
  })
})

describe("errors inside streams and without HTTP", () => {
  it("classifies stream error codes", () => {
    expect(classifyStreamError("overloaded_error", "Overloaded")).toBe("server")
    expect(classifyStreamError("rate_limit_exceeded", "slow down")).toBe("rate-limit")
    expect(classifyStreamError("insufficient_quota", "You exceeded your current quota")).toBe("quota")
    expect(classifyStreamError("invalid_prompt", "bad")).toBe("invalid-request")
    expect(classifyStreamError("context_length_exceeded", "too long")).toBe("context-overflow")
  })

  it("classifies every Anthropic error type by its type alone", () => {
    const kinds = {
      invalid_request_error: "invalid-request",
      authentication_error: "auth",
      billing_error: "quota",
      permission_error: "auth",
      not_found_error: "invalid-request",
      request_too_large: "context-overflow",
      rate_limit_error: "rate-limit",
      api_error: "server",
      timeout_error: "server",
      overloaded_error: "server",
    }
    for (const [type, kind] of Object.entries(kinds)) expect(classifyStreamError(type, "x"), type).toBe(kind)
  })

  it("wraps network failures and stream error events as ProviderErrors", () => {
    const net = networkError(new Error("ECONNRESET"))
    expect(net).toBeInstanceOf(ProviderError)
    expect(net).toMatchObject({ kind: "network", retryable: true, message: "network failure: ECONNRESET" })
    const fromEvent = providerErrorFromEvent({ type: "error", kind: "rate-limit", message: "slow", retryAfterMs: 5 })
    expect(fromEvent).toMatchObject({ kind: "rate-limit", retryAfterMs: 5 })
    expect(providerErrorFromEvent({ type: "error", kind: "truncated", message: "cut" }).kind).toBe("server")
  })
})

describe("retry hints in error bodies", () => {
  it("reads a wait named only in the message (Gemini, OpenAI)", () => {
    const gemini = JSON.stringify({
      error: { code: 429, message: "Quota exceeded. Please retry in 13.296950163s.", status: "RESOURCE_EXHAUSTED" },
    })
    expect(classifyHttpError({ status: 429, body: gemini }).retryAfterMs).toBe(13_297)
    const openai = JSON.stringify({
      error: { message: "Rate limit reached. Please try again in 6m0s.", type: "tokens", code: "rate_limit_exceeded" },
    })
    expect(classifyHttpError({ status: 429, body: openai }).retryAfterMs).toBe(360_000)
  })

  it("takes RetryInfo from error.details only, in any Duration spelling, and headers first", () => {
    const body = (delay: string) =>
      JSON.stringify([
        {
          error: {
            code: 429,
            status: "RESOURCE_EXHAUSTED",
            message: "Resource has been exhausted",
            details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: delay }],
          },
        },
      ])
    expect(classifyHttpError({ status: 429, body: body("0.5s") }).retryAfterMs).toBe(500)
    expect(classifyHttpError({ status: 429, body: body("13s"), headers: { "retry-after": "2" } }).retryAfterMs).toBe(
      2000,
    )
    // A retryDelay that is not RetryInfo's (a field of some other detail) is not a wait.
    const other = JSON.stringify({
      error: { code: 400, message: "bad", details: [{ "@type": "type.example.com/Other", retryDelay: "9s" }] },
    })
    expect(classifyHttpError({ status: 400, body: other }).retryAfterMs).toBeUndefined()
  })
})
