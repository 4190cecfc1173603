import { generateText as generateText6 } from "ai"
import { MockLanguageModelV3 as Mock6 } from "ai/test"
import { generateText as generateText5 } from "ai-v5"
import { MockLanguageModelV2 as Mock5 } from "ai-v5/test"
import { generateText as generateText7 } from "ai-v7"
import { MockLanguageModelV4 as Mock7 } from "ai-v7/test"
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest"
import { fixtureModel, mixedHistory } from "../../test/fixtures/providers/requests/load.js"
import { type AiSdkMajor, aiSdkCall, toAiSdk } from "./ai-sdk.js"

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
  // The three SDKs type their options differently; each call below is the documented shape for its version.
  const args = { maxRetries: 0, ...fields } as never
  let text: string
  if (major === 5)
    text = (await generateText5({ model: new Mock5({ doGenerate } as never), ...(args as object) } as never)).text
  else if (major === 6)
    text = (await generateText6({ model: new Mock6({ doGenerate } as never), ...(args as object) } as never)).text
  else text = (await generateText7({ model: new Mock7({ doGenerate } as never), ...(args as object) } as never)).text
  if (!received) throw new Error("the mock model was not called")
  return { ...received, text }
}

describe("aiSdkCall with the AI SDK's own mock models", () => {
  let warn: ReturnType<typeof vi.spyOn>
  beforeEach(() => {
    warn = vi.spyOn(console, "warn")
  })
  afterEach(() => {
    warn.mockRestore()
  })

  for (const major of [5, 6, 7] as const) {
    it(`ai@${major}: the system prompt arrives first with its cache control, the history follows, no SDK warning`, async () => {
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
    })
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
