import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { MODEL_CATALOG } from "./catalog.js"
import { familyOf, providerOf, resolveModel, tokenizerOf } from "./resolve.js"
import type { ModelInfo } from "./types.js"

describe("the catalog", () => {
  it("has unique ids and aliases, each row with a source and sane limits", () => {
    const names = MODEL_CATALOG.flatMap((m) => [m.id, ...(m.aliases ?? [])])
    expect(new Set(names).size).toBe(names.length)
    for (const m of MODEL_CATALOG) {
      expect(m.source, m.id).toMatch(/^https:\/\//)
      expect(m.contextWindow, m.id).toBeGreaterThan(m.maxOutput)
      if (m.maxInput !== undefined) expect(m.maxInput).toBeLessThanOrEqual(m.contextWindow)
      if (m.prices?.cacheRead !== undefined) expect(m.prices.cacheRead).toBeLessThan(m.prices.input)
      if (m.cache && m.cache.maxBreakpoints > 0) expect(m.prices?.cacheWrite, m.id).toBeGreaterThan(m.prices!.input)
    }
  })

  it("covers every provider the issue names", () => {
    const providers = new Set(MODEL_CATALOG.map((m) => m.provider))
    for (const p of ["anthropic", "openai", "gemini", "deepseek", "xai", "mistral", "qwen", "ollama"]) {
      expect(providers.has(p), p).toBe(true)
    }
  })
})

describe("resolveModel", () => {
  it("finds every catalog row by its id and its aliases without diagnostics", () => {
    for (const row of MODEL_CATALOG) {
      const r = resolveModel(row.id)
      expect(r.known).toBe(true)
      expect(r.model).toEqual(row)
      expect(r.diagnostics).toEqual([])
      for (const alias of row.aliases ?? []) {
        const a = resolveModel(alias)
        expect(a.model.canonicalId).toBe(row.id)
        expect(a.model.id).toBe(alias)
        expect(a.diagnostics).toEqual([])
      }
    }
  })

  it.each([
    ["claude-sonnet-4-5-20250929", "claude-sonnet-4-5-20250929"],
    ["anthropic/claude-sonnet-4.5", "claude-sonnet-4-5-20250929"],
    ["anthropic/claude-opus-4.1:thinking", "claude-opus-4-1-20250805"],
    ["us.anthropic.claude-sonnet-4-20250514-v1:0", "claude-sonnet-4-20250514"],
    ["claude-sonnet-4-5@20250929", "claude-sonnet-4-5-20250929"],
    ["claude-opus-5-5[1m]", "claude-opus-5-5"],
    ["gpt-4o-2024-08-06", "gpt-4o"],
    ["openai/gpt-4o-mini", "gpt-4o-mini"],
    ["google/gemini-2.5-pro", "gemini-2.5-pro"],
    ["deepseek/deepseek-chat", "deepseek-v4-flash"],
    ["qwen3-coder:30b-a3b-q4_K_M", "qwen3-coder:30b"],
    ["gpt-oss", "gpt-oss:20b"],
    ["gpt-oss:latest", "gpt-oss:20b"],
    ["codestral-latest", "codestral-2508"],
  ])("resolves %s to %s", (id, canonical) => {
    const r = resolveModel(id)
    expect(r.known).toBe(true)
    expect(r.model.canonicalId ?? r.model.id).toBe(canonical)
    expect(r.model.id).toBe(id)
  })

  it("says when it matched by a rule rather than exactly", () => {
    const r = resolveModel("gpt-4o-2024-08-06")
    expect(r.diagnostics).toMatchObject([{ level: "info", code: "model-resolved" }])
    const p = resolveModel("gpt-4o-mini-search-preview")
    expect(p.model.canonicalId).toBe("gpt-4o-mini")
    expect(p.diagnostics).toMatchObject([{ level: "warning", code: "model-resolved" }])
  })

  it("gives an unknown model a 128k default, a guessed family and a warning", () => {
    const r = resolveModel("acme-coder-9", { provider: "openai-compatible" })
    expect(r.known).toBe(false)
    expect(r.model).toMatchObject({ contextWindow: 128_000, provider: "openai-compatible", tokenizer: "estimate" })
    expect(r.diagnostics).toMatchObject([{ level: "warning", code: "model-unknown" }])
    const local = resolveModel("mystery-llm:7b")
    expect(local.model).toMatchObject({ provider: "ollama", local: true, capabilities: { nativeTools: false } })
    const claude = resolveModel("claude-3-5-sonnet-20241022")
    expect(claude.model).toMatchObject({ family: "claude", tokenizer: "claude", provider: "anthropic" })
  })

  it("lets user rows add and override models", () => {
    const mine: ModelInfo = { ...MODEL_CATALOG.find((m) => m.id === "gpt-4o")!, contextWindow: 64_000 }
    expect(resolveModel("gpt-4o", { models: [mine] }).model.contextWindow).toBe(64_000)
    const custom: ModelInfo = { ...mine, id: "my-finetune", aliases: ["ft"], source: "https://example.com" }
    expect(resolveModel("ft", { models: [custom] }).model.canonicalId).toBe("my-finetune")
  })

  it("takes the serving provider from the option", () => {
    expect(resolveModel("anthropic/claude-sonnet-4.5", { provider: "openrouter" }).model.provider).toBe("openrouter")
    expect(resolveModel("claude-sonnet-4-5").model.provider).toBe("anthropic")
  })

  it("resolves a router-qualified id to the served model, not to a local row", () => {
    for (const [id, provider] of [
      ["qwen/qwen3-coder", "openrouter"],
      ["qwen/qwen3-coder:free", "openrouter"],
      ["openrouter/qwen/qwen3-coder", undefined],
      ["together/qwen/qwen3-coder", undefined],
      ["qwen3-coder", "qwen"],
    ] as const) {
      const r = resolveModel(id, provider ? { provider } : {})
      expect(r.model.local, id).toBeUndefined()
      expect(r.model).toMatchObject({ family: "qwen", contextWindow: 262_144, provider: provider ?? id.split("/")[0] })
      expect(r.diagnostics[0]?.message).toContain("not a local model")
    }
  })

  it("keeps a local row local on a local server, and for the Ollama name:tag form", () => {
    expect(resolveModel("qwen3-coder", { provider: "ollama" }).model.local).toBe(true)
    expect(resolveModel("qwen3-coder:30b", { provider: "lmstudio" }).model.local).toBe(true)
    expect(resolveModel("qwen3-coder:30b", { provider: "openai" }).model.local).toBe(true)
    expect(resolveModel("qwen3-coder:30b").model.local).toBe(true)
  })

  it("never throws and always returns a positive window (property)", () => {
    fc.assert(
      fc.property(fc.string(), (id) => {
        const r = resolveModel(id)
        expect(r.model.contextWindow).toBeGreaterThan(0)
        expect(r.known || r.diagnostics.length === 1).toBe(true)
      }),
    )
  })
})

describe("guesses", () => {
  it.each([
    ["claude-opus-9", "anthropic", "claude", "claude"],
    ["gpt-7-nova", "openai", "gpt", "o200k"],
    ["gpt-4-0613", "openai", "gpt", "cl100k"],
    ["o5-mini", "openai", "o-series", "o200k"],
    ["gemini-9-ultra", "gemini", "gemini", "gemini"],
    ["grok-9", "xai", "grok", "estimate"],
    ["devstral-3", "mistral", "mistral", "estimate"],
    ["qwen4-max", "qwen", "qwen", "estimate"],
    ["meta-llama/llama-4-scout", "openrouter", "llama", "estimate"],
    ["together/meta-llama/llama-4-scout", "together", "llama", "estimate"],
    ["phi4:14b", "ollama", "phi", "estimate"],
  ])("%s → provider %s, family %s, tokenizer %s", (id, provider, family, tokenizer) => {
    expect(providerOf(id)).toBe(provider)
    expect(familyOf(id)).toBe(family)
    expect(tokenizerOf(id)).toBe(tokenizer)
  })

  it("returns undefined for an id it cannot place", () => {
    expect(providerOf("zzz")).toBeUndefined()
  })
})
