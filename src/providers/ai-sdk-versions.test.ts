import { generateText as generateText6 } from "ai"
import { MockLanguageModelV3 as Mock6 } from "ai/test"
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest"
import { fixtureModel, mixedHistory } from "../../test/fixtures/providers/requests/load.js"
import { loadPeer } from "../../test/peers/load.js"
import { type AiSdkMajor, aiSdkCall, toAiSdk } from "./ai-sdk.js"

// ai@6 is the adapter's own dev dependency; ai@5 and ai@7 are test peers (test/peers/package.json). ai@7 declares
// Node >= 22: on Node 20 this runs its prompt conversion and validation, which is what the adapter's output meets.
type GenerateText = typeof generateText6
type MockModel = new (options: never) => unknown
const ai5 = await loadPeer<{ generateText: GenerateText }>("ai-v5")
const ai5Test = await loadPeer<{ MockLanguageModelV2: MockModel }>("ai-v5/test")
const ai7 = await loadPeer<{ generateText: GenerateText }>("ai-v7")
const ai7Test = await loadPeer<{ MockLanguageModelV4: MockModel }>("ai-v7/test")
/** Each major's generateText and mock model, when installed. */
const SDKS: Record<AiSdkMajor, { generateText: GenerateText; Mock: MockModel } | undefined> = {
  5: ai5 && ai5Test && { generateText: ai5.generateText, Mock: ai5Test.MockLanguageModelV2 },
  6: { generateText: generateText6, Mock: Mock6 as unknown as MockModel },
  7: ai7 && ai7Test && { generateText: ai7.generateText, Mock: ai7Test.MockLanguageModelV4 },
}

/** What a mock model of each major version received, and the text it answered. */
interface Received {
  prompt: { role: string; content: unknown; providerOptions?: unknown }[]
  tools: { name: string }[] | undefined
}

// Each major version's mock model and the result shape its language-model spec expects.
const usage2 = { inputTokens: 10, outputTokens: 2, totalTokens: 12 }
const usage3 = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 2, text: 2, reasoning: 0 },
}
const finish3 = { unified: "stop", raw: "stop" }

async function call(major: AiSdkMajor, fields: ReturnType<typeof aiSdkCall>): Promise<Received & { text: string }> {
  let received: Received | undefined
  const doGenerate = async (options: { prompt: Received["prompt"]; tools?: Received["tools"] }) => {
    received = { prompt: options.prompt, tools: options.tools }
    const content = [{ type: "text", text: "done" }]
    return major === 5
      ? { content, finishReason: "stop", usage: usage2, warnings: [] }
      : { content, finishReason: finish3, usage: usage3, warnings: [] }
  }
  // The three SDKs type their options differently; `fields` is the documented shape for its version.
  const sdk = SDKS[major]!
  const model = new sdk.Mock({ doGenerate } as never)
  const { text } = await sdk.generateText({ model, maxRetries: 0, ...fields } as never)
  if (!received) throw new Error("the mock model was not called")
  return { ...received, text }
}

/** Every warning an AI SDK logs while `run` runs: all three majors hand their warnings to AI_SDK_LOG_WARNINGS. */
async function sdkWarnings<T>(run: () => Promise<T>): Promise<{ result: T; warnings: unknown[] }> {
  const scope = globalThis as { AI_SDK_LOG_WARNINGS?: unknown }
  const before = scope.AI_SDK_LOG_WARNINGS
  const warnings: unknown[] = []
  scope.AI_SDK_LOG_WARNINGS = (options: { warnings: unknown[] }) => warnings.push(...options.warnings)
  try {
    return { result: await run(), warnings }
  } finally {
    scope.AI_SDK_LOG_WARNINGS = before
  }
}

describe("aiSdkCall with the AI SDK's own mock models", () => {
  let warn: ReturnType<typeof vi.spyOn>
  let emitted: ReturnType<typeof vi.spyOn>
  beforeEach(() => {
    warn = vi.spyOn(console, "warn")
    emitted = vi.spyOn(process, "emitWarning")
  })
  afterEach(() => {
    warn.mockRestore()
    emitted.mockRestore()
  })

  for (const major of [5, 6, 7] as const) {
    it.skipIf(!SDKS[major])(
      `ai@${major}: no warning of the SDK, deprecations included, for any part of the history`,
      async () => {
        const { prompt, messages } = mixedHistory()
        // The history has each shape an SDK has deprecated before: an image in a user message and in a tool result.
        const blocks = messages.flatMap((m) => m.content)
        expect(blocks.some((b) => b.type === "image")).toBe(true)
        expect(
          blocks.some(
            (b) => b.type === "tool_result" && Array.isArray(b.content) && b.content.some((c) => c.type === "image"),
          ),
        ).toBe(true)
        const converted = toAiSdk({ prompt, messages, model: fixtureModel("anthropic") }, major)
        const { result, warnings } = await sdkWarnings(() => call(major, aiSdkCall(converted)))
        expect(result.text).toBe("done")
        expect(warnings).toEqual([])
        const deprecations = emitted.mock.calls.filter((args: unknown[]) =>
          /AISDK_DEP|Deprecat/.test(JSON.stringify(args)),
        )
        expect(deprecations).toEqual([])
      },
    )

    it.skipIf(!SDKS[major])(
      `ai@${major}: the system prompt arrives first with its cache control, the history follows, no SDK warning`,
      async () => {
        const { prompt, messages } = mixedHistory()
        const converted = toAiSdk({ prompt, messages, model: fixtureModel("anthropic") }, major)
        const received = await call(major, aiSdkCall(converted))
        expect(received.text).toBe("done")
        const [first, ...rest] = received.prompt
        expect(first).toMatchObject({ role: "system", content: prompt.text })
        expect(JSON.stringify(first!.providerOptions)).toContain('"ephemeral"')
        expect(rest.some((m) => m.role === "system")).toBe(false)
        expect(rest.map((m) => m.role)).toEqual(converted.messages.map((m) => m.role))
        expect(received.tools?.map((t) => t.name)).toEqual(Object.keys(converted.tools))
        const sdkWarnings = warn.mock.calls.filter((args: unknown[]) => String(args[0]).includes("System messages"))
        expect(sdkWarnings).toEqual([])
      },
    )
  }

  it("an empty system prompt gives no system field on any version", () => {
    const { messages } = mixedHistory()
    for (const major of [5, 6, 7] as const) {
      const converted = toAiSdk({ prompt: { text: "", tools: [] }, messages, model: fixtureModel("anthropic") }, major)
      const fields = aiSdkCall(converted)
      expect(fields).not.toHaveProperty("system")
      expect(fields).not.toHaveProperty("instructions")
      expect(fields.messages.some((m) => m.role === "system")).toBe(false)
    }
  })
})
