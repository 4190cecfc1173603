import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { REDACTED, redactDeep, redactHeaders, redactUrl, redactUrlCredentials } from "./redact.js"

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

describe("redactDeep", () => {
  // Secrets of letters that no JSON escape uses (not n, t, r, b, f, u, nor hex digits), so the reference below,
  // which replaces them in the JSON text, replaces exactly the occurrences in the strings.
  const secret = fc.stringMatching(/^[K-Z]{8,12}$/)
  const withSecrets = (secrets: string[]) =>
    fc.letrec<{ value: unknown }>((tie) => ({
      value: fc.oneof(
        { depthSize: "small" },
        fc.string(),
        fc.constantFrom(...secrets).map((s) => `key ${s} here`),
        fc.integer(),
        fc.constant(null),
        fc.array(tie("value"), { maxLength: 4 }),
        // Names with a secret differ before it, so no two become the same name once redacted.
        fc.dictionary(
          fc.oneof(fc.string(), fc.constantFrom("__proto__", ...secrets.map((s, i) => `k${i}${s}`))),
          tie("value"),
          { maxKeys: 4 },
        ),
      ),
    })).value

  it("replaces every secret in names and values, as replacing them in the JSON text would, and keeps the rest", () => {
    fc.assert(
      fc.property(fc.uniqueArray(secret, { minLength: 1, maxLength: 3 }), fc.nat(), (secrets, pick) => {
        fc.assert(
          fc.property(withSecrets(secrets), (value) => {
            // The same value twice: shared parts are redacted in both places.
            const record = { a: value, b: value, n: pick }
            const expected = secrets.reduce((t, s) => t.split(s).join(REDACTED), JSON.stringify(record))
            expect(JSON.stringify(redactDeep(record, secrets))).toBe(expected)
          }),
          { numRuns: 20 },
        )
      }),
      { numRuns: 20 },
    )
  })

  it("returns what holds no secret as it is, and keeps a __proto__ name as a name", () => {
    const body = JSON.parse('{"messages":[{"role":"user","content":"hello"}],"__proto__":{"x":"KLMNOPQRS"}}')
    expect(redactDeep(body, ["ZZZZZZZZZ"])).toBe(body)
    const out = redactDeep(body, ["KLMNOPQRS"]) as Record<string, unknown>
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype)
    expect(Object.keys(out)).toEqual(["messages", "__proto__"])
    expect(JSON.stringify(out)).toBe(`{"messages":[{"role":"user","content":"hello"}],"__proto__":{"x":"${REDACTED}"}}`)
    expect(out.messages).toBe(body.messages)
  })
})
