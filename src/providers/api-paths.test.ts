import { describe, expect, it } from "vitest"
import { clientApiBase, countingRouteOf, isModelListPath, routeOf, servedPaths } from "./api-paths.js"
import { WIRE_FORMATS } from "./descriptors.js"

const q = (s = "") => new URLSearchParams(s)

describe("API paths", () => {
  it("reads each provider's generation path", () => {
    expect(routeOf("/v1/messages", q())).toEqual({ format: "anthropic", route: {} })
    expect(routeOf("/v1/chat/completions", q())?.format).toBe("openai-chat")
    expect(routeOf("/v1/responses", q())?.format).toBe("openai-responses")
    expect(routeOf("/v1beta/models/gemini-2.5-pro:streamGenerateContent", q("alt=sse"))).toEqual({
      format: "gemini",
      route: { model: "gemini-2.5-pro", stream: true, sse: true },
    })
    expect(routeOf("/v1beta/models/gemini-2.5-pro:streamGenerateContent", q())?.route.sse).toBe(false)
    expect(routeOf("/v1beta/models/g:generateContent", q())?.route).toEqual({ model: "g", stream: false, sse: false })
    expect(routeOf("/v1/models", q())).toBeUndefined()
  })

  it("reads token-counting and model-list paths", () => {
    expect(countingRouteOf("/v1/messages/count_tokens")?.format).toBe("anthropic")
    expect(countingRouteOf("/v1beta/models/g-1:countTokens")).toEqual({ format: "gemini", route: { model: "g-1" } })
    expect(countingRouteOf("/v1/messages")).toBeUndefined()
    expect(isModelListPath("/v1/models")).toBe(true)
    expect(isModelListPath("/v1beta/models")).toBe(true)
    expect(isModelListPath("/v1/models/x")).toBe(false)
  })

  it("names the path each client API is served at, and what comes before a format's provider path", () => {
    expect(servedPaths()).toEqual([
      "/v1/messages",
      "/v1/chat/completions",
      "/v1/responses",
      "/v1beta/models/{model}:generateContent",
    ])
    // What the SDKs are given as base URL: OpenAI's end in /v1, Anthropic's and Gemini's are the server itself.
    expect(WIRE_FORMATS.map((f) => [f, clientApiBase(f)])).toEqual([
      ["anthropic", ""],
      ["openai-chat", "/v1"],
      ["openai-responses", "/v1"],
      ["gemini", ""],
      ["deepseek", "/v1"],
    ])
  })
})

describe("a model name in a Gemini path that is not valid percent-encoding", () => {
  it("is named as the problem, never thrown, on every Gemini path", () => {
    for (const bad of ["%ZZ", "%", "a%2", "%E0%A4%A", "%C0%AF"]) {
      for (const verb of ["generateContent", "streamGenerateContent"]) {
        const match = routeOf(`/v1beta/models/${bad}:${verb}`, q("alt=sse"))
        expect(match?.format).toBe("gemini")
        expect(match?.invalid).toContain(bad)
        expect(match?.route.model).toBeUndefined()
      }
      expect(countingRouteOf(`/v1/models/${bad}:countTokens`)?.invalid).toContain("not valid percent-encoding")
    }
    expect(routeOf("/v1beta/models/gemini%2D2.5:generateContent", q())?.route.model).toBe("gemini-2.5")
    expect(routeOf("/v1beta/models/gemini%2D2.5:generateContent", q())?.invalid).toBeUndefined()
  })
})
