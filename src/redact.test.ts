import { describe, expect, it } from "vitest"
import { redactHeaders, redactUrl, redactUrlCredentials } from "./redact.js"

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

  it("replaces the user name and password before a URL's host, and leaves a URL without them", () => {
    expect(redactUrlCredentials("redis://user:s3cret@cache.example:6379/0")).toBe(
      "redis://[redacted]@cache.example:6379/0",
    )
    expect(redactUrlCredentials("rediss://:p@ss@10.0.0.1")).toBe("rediss://[redacted]@10.0.0.1")
    expect(redactUrlCredentials("redis://127.0.0.1:6379/0?x=a@b")).toBe("redis://127.0.0.1:6379/0?x=a@b")
    expect(redactUrlCredentials("redis://127.0.0.1:6379")).toBe("redis://127.0.0.1:6379")
  })
})
