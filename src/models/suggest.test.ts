import { describe, expect, it } from "vitest"
import { resolveModel } from "./resolve.js"
import { modelConfigSnippet, suggestModels } from "./suggest.js"

describe("suggestModels", () => {
  it("offers the closest catalog names for a typo, closest first", () => {
    expect(suggestModels("claude-sonet-4-5")[0]).toBe("claude-sonnet-4-5")
    expect(suggestModels("gpt5")).toEqual(["gpt-5"])
    expect(suggestModels("gemini-2.5-prp")[0]).toBe("gemini-2.5-pro")
    expect(suggestModels("openrouter/deepsek-chat")[0]).toBe("deepseek-chat")
  })

  it("offers nothing for an id that is like no catalog name", () => {
    expect(suggestModels("totally-unknown-model")).toEqual([])
    expect(suggestModels("")).toEqual([])
  })
})

describe("the unknown-model warning", () => {
  it("says what is assumed, suggests close ids and gives the config entry that adds the model", () => {
    const { known, diagnostics } = resolveModel("claude-sonet-4-5")
    expect(known).toBe(false)
    const message = diagnostics.find((d) => d.code === "model-unknown")!.message
    expect(message).toContain("128,000-token window")
    expect(message).toContain('Did you mean "claude-sonnet-4-5"')
    expect(message).toContain("promptline.config.json")
    const snippet = JSON.parse(message.slice(message.indexOf("{")))
    expect(snippet).toEqual(JSON.parse(modelConfigSnippet("claude-sonet-4-5", "anthropic")))
    expect(snippet.models[0]).toMatchObject({ id: "claude-sonet-4-5", contextWindow: 128000 })
  })

  it("puts in the row the provider given or named by the id, and leaves an unknown one for the user to fill", () => {
    const row = (id: string, provider?: string) => {
      const message = resolveModel(id, provider ? { provider } : {}).diagnostics[0]!.message
      return { message, row: JSON.parse(message.slice(message.indexOf("{"))).models[0] }
    }
    expect(row("mistral-coder-x").row.provider).toBe("mistral")
    expect(row("openrouter/acme/coder-9").row.provider).toBe("openrouter")
    expect(row("acme-coder-9", "openai").row.provider).toBe("openai")
    const unknown = row("acme-coder-9")
    expect(unknown.row.provider).toMatch(/^FILL IN: who serves it/)
    expect(unknown.message).toContain("its id does not say who serves it: fill in the provider")
    expect(unknown.message).not.toContain('"anthropic"')
  })

  it("suggests user rows too", () => {
    const mine = resolveModel("in-house-codr", {
      models: [
        {
          id: "in-house-coder",
          provider: "local",
          family: "llama",
          contextWindow: 32000,
          maxOutput: 4096,
          tokenizer: "estimate",
          capabilities: { nativeTools: true, images: false, thinking: false },
          source: "test",
        },
      ],
    })
    expect(mine.diagnostics[0]!.message).toContain('Did you mean "in-house-coder"')
  })
})
