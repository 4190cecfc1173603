import { describe, expect, it } from "vitest"
import { redactHeaders, redactUrl } from "./redact.js"

describe("redaction", () => {
  it("replaces every credential header, whatever its case, and keeps the rest sorted", () => {
    expect(
      redactHeaders({
        "X-Api-Key": "sk-1",
        authorization: "Bearer sk-2",
        "Proxy-Authorization": "Basic c2VjcmV0",
        "x-goog-api-key": "g-3",
        "content-type": "application/json",
        accept: ["a", "b"],
        skipped: undefined,
      }),
    ).toEqual({
      "Proxy-Authorization": "[redacted]",
      "X-Api-Key": "[redacted]",
      accept: "a, b",
      authorization: "[redacted]",
      "content-type": "application/json",
      "x-goog-api-key": "[redacted]",
    })
  })

  it("replaces a key in a URL's query and leaves other parameters", () => {
    expect(redactUrl("https://g.example/v1beta/models/m:streamGenerateContent?alt=sse&key=AIza123#x")).toBe(
      "https://g.example/v1beta/models/m:streamGenerateContent?alt=sse&key=[redacted]#x",
    )
    expect(redactUrl("https://x.example/v1?api_key=abc&keys=1")).toBe("https://x.example/v1?api_key=[redacted]&keys=1")
  })
})
