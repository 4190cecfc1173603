import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { endpointFor } from "../providers/endpoints.js"
import type { Upstream } from "./routing.js"
import { clientKey } from "./secrets.js"
import { forwardHeaders, upstreamTarget } from "./target.js"

const upstreams: Upstream[] = [
  { name: "anthropic", provider: "anthropic", format: "anthropic", baseUrl: "http://127.0.0.1:9" },
  { name: "local", provider: "anthropic", format: "anthropic", baseUrl: "http://127.0.0.1:10" },
  { name: "chat", provider: "openai", format: "openai-chat", baseUrl: "http://127.0.0.1:11/v1" },
  { name: "own", provider: "openai", format: "openai-chat", baseUrl: "http://127.0.0.1:12/v1", keyEnv: "OWN_KEY" },
]

/** The target as a fresh process would make it: every field, the endpoint's headers included. */
const shape = (t: ReturnType<typeof upstreamTarget>) => JSON.parse(JSON.stringify(t))

describe("upstreamTarget", () => {
  it("answers a generation call from its memo as it would make it afresh, for every client key and upstream", () => {
    const call = fc.record({
      upstream: fc.integer({ min: 0, max: upstreams.length - 1 }),
      model: fc.constantFrom("claude-sonnet-4-5", "gpt-4.1", "models/x"),
      key: fc.constantFrom("sk-a", "sk-b", ""),
      own: fc.constantFrom("env-1", "env-2"),
      stream: fc.boolean(),
      query: fc.constantFrom("", "beta=true", "alt=sse&key=secret"),
    })
    const seen = new Map<string, unknown>()
    fc.assert(
      fc.property(fc.array(call, { minLength: 1, maxLength: 30 }), (calls) => {
        for (const c of calls) {
          // Shared, as the route plans share their upstreams: the memo is the upstream's own.
          const upstream = upstreams[c.upstream]!
          const query = new URLSearchParams(c.query)
          const target = upstreamTarget(
            upstream,
            c.model,
            { kind: "generation", stream: c.stream, clientQuery: query },
            { OWN_KEY: c.own },
            { clientKey: clientKey({ "x-api-key": c.key }, query), tokenInUse: false },
          )
          const expected = upstream.keyEnv !== undefined ? c.own : c.key
          // A memo keyed on too little would hand one client another's key.
          expect(target.key).toBe(expected)
          if (expected !== "") expect(Object.values(target.endpoint.headers).join(" ")).toContain(expected)
          expect(target.url).not.toContain("secret")
          // The endpoint is the one made afresh with that key, whether it came from the memo or not.
          expect(target.endpoint).toEqual(
            endpointFor({
              provider: upstream.provider,
              format: upstream.format,
              env: {},
              apiKey: expected,
              ...(upstream.baseUrl !== undefined ? { baseUrl: upstream.baseUrl } : {}),
            }),
          )
          // And the same call answers the same target every time.
          const id = JSON.stringify(c)
          if (seen.has(id)) expect(shape(target)).toEqual(seen.get(id))
          else seen.set(id, shape(target))
        }
      }),
    )
  })
})

describe("forwardHeaders", () => {
  /** The headers never forwarded as they came (credentials, hop-by-hop, the body's framing, our own)... */
  const dropped = new Set([
    "x-api-key",
    "authorization",
    "x-goog-api-key",
    "cookie",
    "host",
    "content-length",
    "content-type",
    "transfer-encoding",
    "accept-encoding",
    "x-promptline-conversation",
  ])
  /** ...and the client's end-to-end ones, forwarded unless `connection` lists them. */
  const names = fc.constantFrom(...dropped, "anthropic-version", "anthropic-beta", "user-agent", "x-custom", "x-listed")

  it("sends the client's end-to-end headers, never its credentials or hop-by-hop ones, with the endpoint's key", () => {
    const endpoint = endpointFor({
      provider: "anthropic",
      env: {},
      apiKey: "sk-gateway",
      baseUrl: "http://127.0.0.1:9",
    })
    fc.assert(
      fc.property(
        fc.dictionary(names, fc.oneof(fc.string(), fc.array(fc.string(), { minLength: 1, maxLength: 3 }))),
        fc.option(
          fc.constantFrom("keep-alive", " Keep-Alive ", "close", "close, X-Listed", "keep-alive, x-custom", "x-custom"),
        ),
        (headers, connection) => {
          const client = { ...headers, ...(connection !== null ? { connection } : {}) }
          const listed = new Set((connection ?? "").split(",").map((h) => h.trim().toLowerCase()))
          const out = forwardHeaders(client, endpoint)
          expect(out["x-api-key"]).toBe("sk-gateway")
          expect(out["content-type"]).toBe("application/json")
          expect(out.authorization).toBeUndefined()
          expect(out.cookie).toBeUndefined()
          expect(out.connection).toBeUndefined()
          for (const [name, value] of Object.entries(headers)) {
            if (dropped.has(name) || listed.has(name)) {
              if (name !== "x-api-key" && name !== "content-type") expect(out[name]).toBeUndefined()
              continue
            }
            expect(out[name]).toBe(Array.isArray(value) ? value.join(", ") : value)
          }
          // The endpoint's own defaults stand where the client sent none.
          if (headers["anthropic-version"] === undefined)
            expect(out["anthropic-version"]).toBe(endpoint.headers["anthropic-version"])
        },
      ),
    )
  })
})
