import { describe, expect, it } from "vitest"
import { classifyHttpError } from "../errors.js"
import type { ErrorInput } from "../types.js"
import { encodeResponsesError } from "./errors.js"

describe("OpenAI Responses error answers", () => {
  it("gives each kind OpenAI's status and body, and our classifier reads it back as the same kind", () => {
    const kinds: [ErrorInput["kind"], number][] = [
      ["invalid-request", 400],
      ["context-overflow", 400],
      ["auth", 401],
      ["not-found", 404],
      ["rate-limit", 429],
      ["quota", 429],
      ["server", 500],
      ["network", 502],
      ["overloaded", 503],
    ]
    for (const [kind, status] of kinds) {
      const answer = encodeResponsesError({ kind, message: "Something happened." })
      expect(answer.status, kind).toBe(status)
      const body = answer.body as { error: Record<string, unknown> }
      expect(Object.keys(body.error).sort()).toEqual(["code", "message", "param", "type"])
      const read = classifyHttpError({ status, body: JSON.stringify(body) }).kind
      const expected =
        kind === "not-found" ? "invalid-request" : kind === "overloaded" || kind === "network" ? "server" : kind
      expect(read, kind).toBe(expected)
    }
  })

  it("words an overflow as OpenAI does, whatever the upstream said, so OpenAI's clients compact", () => {
    const answer = encodeResponsesError({
      kind: "context-overflow",
      message: "prompt is too long: 300000 tokens > 200000 maximum",
    })
    expect(answer.body).toEqual({
      error: {
        message: "Your input exceeds the context window of this model. Please adjust your input and try again.",
        type: "invalid_request_error",
        param: "input",
        code: "context_length_exceeded",
      },
    })
  })

  it("puts a rate limit's wait in retry-after, in whole seconds rounded up, and keeps a code override", () => {
    expect(encodeResponsesError({ kind: "rate-limit", message: "Slow down.", retryAfterMs: 1200 }).headers).toEqual({
      "retry-after": "2",
    })
    expect(encodeResponsesError({ kind: "server", message: "x" }).headers).toEqual({})
    const missing = encodeResponsesError({
      kind: "invalid-request",
      message: "Previous response with id 'resp_1' not found.",
      code: "previous_response_not_found",
      param: "previous_response_id",
    })
    expect(missing.body).toMatchObject({
      error: { code: "previous_response_not_found", param: "previous_response_id" },
    })
  })
})
