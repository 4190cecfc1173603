import type {
  Content as SdkContent,
  GenerationConfig as SdkGenerationConfig,
  ToolConfig as SdkToolConfig,
} from "@google/genai"
import { describe, expect, expectTypeOf, it } from "vitest"
import { fixtureModel, mixedHistory } from "../../../test/fixtures/providers/requests/load.js"
import { encodeGemini } from "./encode.js"
import type { Content, GenerationConfig, ToolConfig } from "./wire-types.js"

/** The SDK's type with TypeScript enums read as their string values (what goes over the wire). */
type Wire<T> = T extends string
  ? `${T}`
  : T extends readonly (infer U)[]
    ? Wire<U>[]
    : T extends object
      ? { [K in keyof T]: Wire<T[K]> }
      : T

describe("Gemini request body types", () => {
  it("stay assignable to the official SDK's types, enums read as their wire strings", () => {
    expectTypeOf<Content>().toExtend<SdkContent>()
    expectTypeOf<ToolConfig>().toExtend<Wire<SdkToolConfig>>()
    expectTypeOf<GenerationConfig>().toExtend<Wire<SdkGenerationConfig>>()
  })

  it("describe what the encoder writes", () => {
    const { prompt, messages } = mixedHistory()
    const model = fixtureModel("gemini")
    const { body } = encodeGemini({ prompt, messages, model, options: { thinking: { effort: "low" } } })
    expect(body.contents.every((c) => c.role === "user" || c.role === "model")).toBe(true)
    const thinking = body.generationConfig?.thinkingConfig
    expect(thinking?.thinkingBudget ?? thinking?.thinkingLevel).toBeDefined()
  })
})
