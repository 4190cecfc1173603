/**
 * Translate mode with the AI SDK as the client, thinking and images: each AI SDK provider asks for reasoning
 * through the gateway and runs a tool round trip with it, and sends an image; the upstream, in each of the five
 * formats, must get a request its provider accepts, its own signature back where the client carries it, and the
 * image in its format (DeepSeek, which reads none: a note, named in `x-promptline-dropped`).
 */
import { generateText, jsonSchema, stepCountIs, streamText, tool } from "ai"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { BuiltInWireFormat } from "../models/types.js"
import { formatModule } from "../providers/formats.js"
import { replaySignature } from "../replay/resolve.js"
import {
  AI_SDK_CALL,
  AI_SDK_PROVIDERS,
  type AiSdkProvider,
  aiSdkModel,
  aiSdkProviderInstalled,
} from "./test-helpers/ai-sdk-clients.js"
import { FORMATS, type Matrix, requestsDuring, spokenFormat, startMatrix, UPSTREAMS } from "./test-helpers/matrix.js"

const THOUGHT = "The file a.ts should be read before answering."
const FINAL = "The file is empty."
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="

let matrix: Matrix
beforeAll(async () => {
  matrix = await startMatrix(
    AI_SDK_PROVIDERS.flatMap(() =>
      FORMATS.flatMap(() => [
        { thinking: THOUGHT, toolCalls: [{ name: "read_file", input: { path: "a.ts" } }] },
        { text: FINAL },
        { text: FINAL },
      ]),
    ),
  )
})
afterAll(async () => {
  await matrix?.close()
})

/** Each provider's way of asking for visible reasoning. */
const REASONING: Record<AiSdkProvider, Record<string, Record<string, unknown>>> = {
  anthropic: { anthropic: { thinking: { type: "enabled", budgetTokens: 1024 } } },
  "openai-chat": { openai: { reasoningEffort: "low", forceReasoning: true } },
  "openai-responses": {
    openai: { reasoningEffort: "low", reasoningSummary: "auto", store: false, forceReasoning: true },
  },
  google: { google: { thinkingConfig: { includeThoughts: true, thinkingBudget: 1024 } } },
}

/**
 * The providers that send the upstream's signature back. The AI SDK's OpenAI Chat provider reads no
 * `reasoning_content`; its Google provider keeps a signature only on a part with content, so another provider's
 * signature (on a part of its own) is lost; Gemini's own rides on the call and comes back.
 */
const SIGNED_BACK: Record<BuiltInWireFormat, AiSdkProvider[]> = {
  anthropic: ["anthropic", "openai-responses"],
  "openai-responses": ["anthropic", "openai-responses"],
  gemini: ["google"],
  "openai-chat": [],
  deepseek: [],
}

const tools = {
  read_file: tool({
    description: "Reads a file.",
    inputSchema: jsonSchema<{ path: string }>({
      type: "object",
      properties: { path: { type: "string" } },
      required: ["path"],
    }),
    execute: async () => "",
  }),
}

describe("translate mode: the AI SDK's reasoning and images, against every upstream format", () => {
  for (const provider of AI_SDK_PROVIDERS) {
    for (const upstream of FORMATS) {
      it.skipIf(!aiSdkProviderInstalled(provider))(
        `${provider} provider → ${upstream} upstream: reasoning through a tool round trip, and an image`,
        async () => {
          const model = aiSdkModel(matrix.gateway, provider, `to-${upstream}`)
          const spoken = spokenFormat(upstream)
          const run = await requestsDuring(matrix.replay, async () => {
            const result = streamText({
              ...AI_SDK_CALL,
              model,
              prompt: "read a.ts",
              tools,
              stopWhen: stepCountIs(2),
              providerOptions: REASONING[provider] as never,
            })
            const steps = await result.steps
            return { reasoning: steps[0]!.reasoningText ?? "", text: await result.text }
          })
          expect(run.seen.map((r) => [r.format, r.outcome, r.problems])).toEqual([
            [spoken, "answered", []],
            [spoken, "answered", []],
          ])
          const route = upstream === "gemini" ? { model: UPSTREAMS.gemini.model } : undefined
          const second = formatModule(upstream).decodeRequest(run.seen[1]!.body, route)
          const assistant = second.messages.filter((m) => m.role === "assistant").at(-1)!
          const signature = replaySignature(run.seen[0]!.turn!)
          const signed = assistant.content.some(
            (b) => (b.type === "thinking" || b.type === "tool_use") && b.signature === signature,
          )
          expect(run.result).toEqual({ reasoning: provider === "openai-chat" ? "" : THOUGHT, text: FINAL })
          expect(signed).toBe(SIGNED_BACK[upstream].includes(provider))
          if (upstream === "deepseek") {
            // DeepSeek signs nothing; its reasoning goes back as `reasoning_content` from every provider that read it
            // (the Anthropic provider needs a signature to send thinking back: the gateway sealed an empty one).
            const thoughts = assistant.content.flatMap((b) => (b.type === "thinking" ? [b.text] : []))
            expect(thoughts).toEqual(provider === "openai-chat" ? [] : [THOUGHT])
          }

          const image = await requestsDuring(matrix.replay, () =>
            generateText({
              ...AI_SDK_CALL,
              model,
              messages: [
                {
                  role: "user",
                  content: [
                    { type: "text", text: "what is this?" },
                    { type: "image", image: PNG, mediaType: "image/png" },
                  ],
                },
              ],
            }),
          )
          expect(image.result.text).toBe(FINAL)
          const user = formatModule(upstream).decodeRequest(image.seen[0]!.body, route).messages.at(-1)!
          const dropped = image.result.response.headers?.["x-promptline-dropped"]
          if (upstream === "deepseek") {
            expect(user.content.some((b) => b.type === "image")).toBe(false)
            expect(dropped).toBe("image (deepseek-chat reads no images; replaced by a note)")
          } else {
            expect(user.content.find((b) => b.type === "image")).toEqual({
              type: "image",
              mediaType: "image/png",
              data: PNG,
            })
            expect(dropped).toBeUndefined()
          }
        },
      )
    }
  }
})
