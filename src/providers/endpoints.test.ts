import { describe, expect, it } from "vitest"
import { MODEL_CATALOG } from "../models/catalog.js"
import { WIRE_FORMATS } from "../models/types.js"
import { wireFormatOf } from "../models/wire.js"
import {
  EndpointError,
  endpointFor,
  keyStyleOf,
  MissingKeyError,
  PROVIDERS,
  requestUrl,
  responsesSocketUrl,
  withKey,
} from "./endpoints.js"

const KEYS = {
  ANTHROPIC_API_KEY: "sk-ant",
  OPENAI_API_KEY: "sk-openai",
  GEMINI_API_KEY: "gm-key",
  DEEPSEEK_API_KEY: "ds-key",
  OPENROUTER_API_KEY: "or-key",
  XAI_API_KEY: "xai-key",
  MISTRAL_API_KEY: "ms-key",
  DASHSCOPE_API_KEY: "qw-key",
}

describe("the provider registry", () => {
  it("reaches each hosted provider at its default URL with its own auth header", () => {
    const cases: [string, string, string, Record<string, string>][] = [
      [
        "anthropic",
        "claude-sonnet-4-6",
        "https://api.anthropic.com/v1/messages",
        { "x-api-key": "sk-ant", "anthropic-version": "2023-06-01" },
      ],
      ["openai", "gpt-5", "https://api.openai.com/v1/responses", { authorization: "Bearer sk-openai" }],
      [
        "gemini",
        "gemini-2.5-pro",
        "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse",
        { "x-goog-api-key": "gm-key" },
      ],
      ["deepseek", "deepseek-chat", "https://api.deepseek.com/chat/completions", { authorization: "Bearer ds-key" }],
      [
        "openrouter",
        "anthropic/claude-sonnet-4.6",
        "https://openrouter.ai/api/v1/chat/completions",
        { authorization: "Bearer or-key" },
      ],
      ["xai", "grok-4", "https://api.x.ai/v1/chat/completions", { authorization: "Bearer xai-key" }],
      [
        "qwen",
        "qwen3-coder-plus",
        "https://dashscope-intl.aliyuncs.com/compatible-mode/v1/chat/completions",
        { authorization: "Bearer qw-key" },
      ],
      ["mistral", "devstral-medium", "https://api.mistral.ai/v1/chat/completions", { authorization: "Bearer ms-key" }],
    ]
    for (const [provider, model, url, headers] of cases) {
      const endpoint = endpointFor({ provider, env: KEYS })
      expect(requestUrl(endpoint, model), provider).toBe(url)
      expect(endpoint.headers, provider).toMatchObject({ "content-type": "application/json", ...headers })
    }
  })

  it("uses the default wire format per provider, and OpenAI Chat on request", () => {
    const formats = Object.fromEntries(
      ["anthropic", "openai", "gemini", "google", "deepseek", "openrouter", "ollama"].map((p) => [
        p,
        endpointFor({ provider: p, env: { ...KEYS, GOOGLE_API_KEY: "g" } }).format,
      ]),
    )
    expect(formats).toEqual({
      anthropic: "anthropic",
      openai: "openai-responses",
      gemini: "gemini",
      google: "gemini",
      deepseek: "deepseek",
      openrouter: "openai-chat",
      ollama: "openai-chat",
    })
    const chat = endpointFor({ provider: "openai", format: "openai-chat", env: KEYS })
    expect(requestUrl(chat, "gpt-4.1")).toBe("https://api.openai.com/v1/chat/completions")
  })

  it("reads the Gemini key from GEMINI_API_KEY first, then GOOGLE_API_KEY, for both provider ids", () => {
    expect(endpointFor({ provider: "google", env: { GOOGLE_API_KEY: "g" } }).headers["x-goog-api-key"]).toBe("g")
    const both = endpointFor({ provider: "gemini", env: { GOOGLE_API_KEY: "g", GEMINI_API_KEY: "m" } })
    expect(both.headers["x-goog-api-key"]).toBe("m")
    expect(both.keySource).toBe("GEMINI_API_KEY")
  })

  it("puts the model in Gemini's path, streamed or not, without a models/ prefix", () => {
    const endpoint = endpointFor({ provider: "gemini", env: KEYS, baseUrl: "http://127.0.0.1:9/" })
    expect(requestUrl(endpoint, "models/gemini-2.5-flash")).toBe(
      "http://127.0.0.1:9/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
    )
    expect(requestUrl(endpoint, "gemini-2.5-flash", { stream: false })).toBe(
      "http://127.0.0.1:9/v1beta/models/gemini-2.5-flash:generateContent",
    )
  })

  it("local servers need no key and send no credential", () => {
    for (const provider of ["ollama", "lmstudio", "vllm", "llama.cpp"]) {
      const endpoint = endpointFor({ provider, env: {} })
      expect(endpoint.headers, provider).toEqual({ "content-type": "application/json" })
      expect(endpoint.baseUrl, provider).toMatch(/^http:\/\/localhost:\d+\/v1$/)
      expect(endpoint.keySource).toBe("none")
    }
    expect(requestUrl(endpointFor({ provider: "ollama", env: {} }), "qwen3:8b")).toBe(
      "http://localhost:11434/v1/chat/completions",
    )
  })

  it("any other provider with a base URL is OpenAI-compatible; without one it is an error", () => {
    const endpoint = endpointFor({ provider: "my-gateway", env: {}, baseUrl: "https://llm.example.test/v1/" })
    expect(endpoint.format).toBe("openai-chat")
    expect(requestUrl(endpoint, "m")).toBe("https://llm.example.test/v1/chat/completions")
    expect(endpoint.headers.authorization).toBeUndefined()
    const keyed = endpointFor({ provider: "my-gateway", env: {}, baseUrl: "https://llm.example.test/v1", apiKey: "k" })
    expect(keyed.headers.authorization).toBe("Bearer k")
    expect(() => endpointFor({ provider: "my-gateway", env: {} })).toThrow(EndpointError)
    expect(() => endpointFor({ provider: "my-gateway", env: {} })).toThrow(/unknown provider "my-gateway".*base URL/)
  })

  it("a base URL and a key given by the caller win over the environment", () => {
    const env = { ...KEYS, ANTHROPIC_BASE_URL: "https://proxy.example.test" }
    expect(endpointFor({ provider: "anthropic", env }).baseUrl).toBe("https://proxy.example.test")
    const endpoint = endpointFor({ provider: "anthropic", env, baseUrl: "http://127.0.0.1:1", apiKey: "given" })
    expect(endpoint.baseUrl).toBe("http://127.0.0.1:1")
    expect(endpoint.headers["x-api-key"]).toBe("given")
    expect(endpoint.keySource).toBe("option")
    const none = endpointFor({ provider: "anthropic", env, apiKey: "" })
    expect(none.headers["x-api-key"]).toBeUndefined()
  })

  it("extra headers are added and may replace defaults", () => {
    const endpoint = endpointFor({
      provider: "openrouter",
      env: KEYS,
      headers: { "HTTP-Referer": "https://example.test", "X-Title": "promptline" },
    })
    expect(endpoint.headers).toMatchObject({ "HTTP-Referer": "https://example.test", authorization: "Bearer or-key" })
  })

  it("a missing key is one line naming the variable to set", () => {
    const messages: Record<string, string> = {}
    for (const provider of ["anthropic", "openai", "gemini", "deepseek", "openrouter", "xai", "mistral", "qwen"]) {
      try {
        endpointFor({ provider, env: { ANTHROPIC_API_KEY: "  " } })
        expect.unreachable(`${provider} needs a key`)
      } catch (error) {
        expect(error).toBeInstanceOf(MissingKeyError)
        expect((error as MissingKeyError).code).toBe("missing-api-key")
        messages[provider] = (error as Error).message
      }
    }
    for (const message of Object.values(messages)) expect(message).not.toContain("\n")
    expect(messages).toEqual({
      anthropic: "Anthropic needs an API key: set ANTHROPIC_API_KEY.",
      openai: "OpenAI needs an API key: set OPENAI_API_KEY.",
      gemini: "Gemini needs an API key: set GEMINI_API_KEY or GOOGLE_API_KEY.",
      deepseek: "DeepSeek needs an API key: set DEEPSEEK_API_KEY.",
      openrouter: "OpenRouter needs an API key: set OPENROUTER_API_KEY.",
      xai: "xAI needs an API key: set XAI_API_KEY.",
      mistral: "Mistral needs an API key: set MISTRAL_API_KEY.",
      qwen: "Qwen (Alibaba Model Studio) needs an API key: set DASHSCOPE_API_KEY.",
    })
  })

  it("a wire format the provider does not speak is a typed error", () => {
    expect(() => endpointFor({ provider: "anthropic", format: "gemini", env: KEYS })).toThrow(
      /Anthropic does not speak the gemini wire format \(it speaks anthropic\)/,
    )
  })

  it("every provider speaks its default format, and every format has a provider", () => {
    for (const info of Object.values(PROVIDERS))
      expect(info.paths[wireFormatOf({ provider: info.id, family: "" })], info.id).toBeDefined()
    for (const format of WIRE_FORMATS)
      expect(
        Object.values(PROVIDERS).some((p) => p.paths[format] !== undefined),
        format,
      ).toBe(true)
  })

  it("every provider in the model catalog has an endpoint that speaks the model's wire format", () => {
    const env = { ...KEYS, DASHSCOPE_API_KEY: "k" }
    for (const model of MODEL_CATALOG) {
      const endpoint = endpointFor({ provider: model.provider, env })
      expect(endpoint.format, model.id).toBe(wireFormatOf(model))
    }
  })

  it("the Responses WebSocket lives at /responses under the base URL, as ws or wss", () => {
    expect(responsesSocketUrl(endpointFor({ provider: "openai", env: KEYS }))).toBe("wss://api.openai.com/v1/responses")
    const local = endpointFor({ provider: "openai", env: KEYS, baseUrl: "http://127.0.0.1:8000/v1" })
    expect(responsesSocketUrl(local)).toBe("ws://127.0.0.1:8000/v1/responses")
  })

  it("a base URL that is not an http(s) URL is refused up front, naming where it came from", () => {
    expect(() => endpointFor({ provider: "openai", env: KEYS, baseUrl: "not a url" })).toThrow(
      expect.objectContaining({ code: "invalid-base-url", message: expect.stringContaining('"not a url"') }),
    )
    expect(() => endpointFor({ provider: "my-gateway", env: {}, baseUrl: "ftp://example.test" })).toThrow(
      expect.objectContaining({ code: "invalid-base-url" }),
    )
    const env = { ...KEYS, ANTHROPIC_BASE_URL: "localhost:8000" }
    expect(() => endpointFor({ provider: "anthropic", env })).toThrow(/ANTHROPIC_BASE_URL "localhost:8000"/)
  })
})

describe("withKey", () => {
  it("adds a key to a keyless endpoint exactly as endpointFor makes it with that key, for every provider and format", () => {
    const providers = [
      ...Object.values(PROVIDERS).map((p) => ({ id: p.id, formats: Object.keys(p.paths) })),
      { id: "my-server", formats: ["openai-chat"] },
    ]
    let checked = 0
    for (const { id, formats } of providers)
      for (const format of formats as (typeof WIRE_FORMATS)[number][])
        for (const key of ["", "sk-one", "sk-two"]) {
          const request = { provider: id, format, env: {}, baseUrl: "http://127.0.0.1:9/v1" }
          const keyless = endpointFor({ ...request, apiKey: "" })
          expect(withKey(keyless, keyStyleOf(keyless), key)).toEqual(endpointFor({ ...request, apiKey: key }))
          checked++
        }
    expect(checked).toBeGreaterThan(20)
  })

  it("leaves the keyless endpoint as it was: one kept endpoint serves every key", () => {
    const keyless = endpointFor({ provider: "anthropic", env: {}, apiKey: "" })
    const before = JSON.stringify(keyless)
    const one = withKey(keyless, keyStyleOf(keyless), "sk-one")
    withKey(keyless, keyStyleOf(keyless), "sk-two")
    expect(JSON.stringify(keyless)).toBe(before)
    expect(one.headers["x-api-key"]).toBe("sk-one")
  })
})
