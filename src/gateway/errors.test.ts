import { describe, expect, it } from "vitest"
import { classifyHttpError } from "../providers/errors.js"
import { WIRE_FORMAT_MODULES } from "../providers/formats.js"
import { errorAnswer } from "./errors.js"

const clientFormats = [...new Set(Object.values(WIRE_FORMAT_MODULES).map((m) => m.speaks))]

describe("errors in the client's shape", () => {
  it.each(clientFormats)(
    "%s: an overflow reads as the client's own overflow, a rate limit keeps its wait",
    (format) => {
      const overflow = errorAnswer(format, { kind: "context-overflow", message: "too long upstream" })
      const read = classifyHttpError({
        status: overflow.status,
        body: JSON.stringify(overflow.body),
        headers: overflow.headers,
      })
      expect(read.kind).toBe("context-overflow")
      const limited = errorAnswer(format, { kind: "rate-limit", message: "slow down", retryAfterMs: 6500 })
      expect(limited.status).toBe(429)
      expect(limited.headers["retry-after"]).toBe("7")
      const again = classifyHttpError({
        status: limited.status,
        body: JSON.stringify(limited.body),
        headers: limited.headers,
      })
      expect([again.kind, again.retryAfterMs]).toEqual(["rate-limit", 7000])
      expect(errorAnswer(format, { kind: "invalid-request", message: "x" }, 413).status).toBe(413)
    },
  )
})
