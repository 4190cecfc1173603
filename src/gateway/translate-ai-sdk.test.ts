/**
 * Translate mode with the AI SDK as the client: its Anthropic, OpenAI Chat, OpenAI Responses and Google providers
 * pointed at the gateway, against the replay server in each of the five formats. generateText reads a text turn
 * and its usage; streamText runs a tool round trip (the tool executes, the second step answers); a 429, an
 * overflow and a cut stream reach the AI SDK as its own errors.
 */
import { APICallError, generateText, jsonSchema, stepCountIs, streamText, tool } from "ai"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { BuiltInWireFormat } from "../models/types.js"
import {
  AI_SDK_CALL,
  AI_SDK_PROVIDERS,
  type AiSdkProvider,
  aiSdkModel,
  aiSdkProviderInstalled,
} from "./test-helpers/ai-sdk-clients.js"
import { FORMATS, type Matrix, requestsDuring, spokenFormat, startMatrix } from "./test-helpers/matrix.js"

const PROVIDERS = AI_SDK_PROVIDERS
type Provider = AiSdkProvider

const TEXT = "Plain answer."
const FINAL = "The file is empty."
const USAGE = { input: 31, output: 9 }
const ASK = AI_SDK_CALL

let matrix: Matrix
beforeAll(async () => {
  const turns = PROVIDERS.flatMap(() =>
    FORMATS.flatMap(() => [
      { text: TEXT, usage: USAGE },
      { toolCalls: [{ name: "read_file", input: { path: "a.ts" } }] },
      { text: FINAL },
    ]),
  )
  // One more turn for the failure tests: its faults answer their requests, the turn itself is never asked for.
  turns.push({ text: FINAL, usage: USAGE })
  matrix = await startMatrix(turns)
})
afterAll(async () => {
  await matrix?.close()
})

/** The AI SDK model of `provider` for a gateway route. */
const modelOf = (provider: Provider, route: string) => aiSdkModel(matrix.gateway, provider, route)

const schema = jsonSchema<{ path: string }>({
  type: "object",
  properties: { path: { type: "string" } },
  required: ["path"],
})

describe("translate mode: the AI SDK as the client, against every upstream format", () => {
  for (const provider of PROVIDERS) {
    for (const upstream of FORMATS) {
      it.skipIf(!aiSdkProviderInstalled(provider))(
        `${provider} provider → ${upstream} upstream: generateText with usage, streamText with a tool round trip`,
        async () => {
          const model = modelOf(provider, `to-${upstream}`)
          const spoken = spokenFormat(upstream as BuiltInWireFormat)
          const text = await requestsDuring(matrix.replay, () => generateText({ model, prompt: "say it", ...ASK }))
          expect(text.result.text).toBe(TEXT)
          expect([text.result.usage.inputTokens, text.result.usage.outputTokens]).toEqual([USAGE.input, USAGE.output])
          expect(text.seen.map((r) => [r.format, r.outcome, r.problems])).toEqual([[spoken, "answered", []]])

          const executed: unknown[] = []
          const tools = {
            read_file: tool({
              description: "Reads a file.",
              inputSchema: schema,
              execute: async (input) => {
                executed.push(input)
                return ""
              },
            }),
          }
          const run = await requestsDuring(matrix.replay, async () => {
            const result = streamText({ model, prompt: "read a.ts", tools, stopWhen: stepCountIs(2), ...ASK })
            return { text: await result.text, steps: (await result.steps).length }
          })
          expect(run.result).toEqual({ text: FINAL, steps: 2 })
          expect(executed).toEqual([{ path: "a.ts" }])
          expect(run.seen.map((r) => [r.format, r.outcome, r.problems])).toEqual([
            [spoken, "answered", []],
            [spoken, "answered", []],
          ])
        },
      )
    }
  }
})

describe("translate mode: upstream failures reach the AI SDK as its own errors", () => {
  /** Each AI SDK provider against an upstream of another format. */
  const PAIRS: [Provider, BuiltInWireFormat][] = [
    ["anthropic", "gemini"],
    ["openai-chat", "openai-responses"],
    ["openai-responses", "anthropic"],
    ["google", "deepseek"],
  ]
  for (const [provider, upstream] of PAIRS) {
    it.skipIf(!aiSdkProviderInstalled(provider))(
      `${provider} provider, ${upstream} upstream: a 429 keeps its wait and is retryable, an overflow is a 400, a cut is an error`,
      async () => {
        const next = matrix.replay.requests.filter((r) => r.outcome === "answered").length
        matrix.replay.injectFault(next, { kind: "rate-limit", retryAfter: 7 })
        matrix.replay.injectFault(next, { kind: "context-overflow" })
        matrix.replay.injectFault(next, { kind: "disconnect" })
        const model = modelOf(provider, `to-${upstream}`)
        const limited = await failureOf(() => generateText({ model, prompt: "hi", ...ASK }))
        expect(APICallError.isInstance(limited)).toBe(true)
        const rate = limited as APICallError
        expect([rate.statusCode, rate.isRetryable, rate.responseHeaders?.["retry-after"]]).toEqual([429, true, "7"])
        const overflow = await failureOf(() => generateText({ model, prompt: "hi", ...ASK }))
        expect(APICallError.isInstance(overflow)).toBe(true)
        expect([(overflow as APICallError).statusCode, (overflow as APICallError).isRetryable]).toEqual([400, false])
        const cut = await failureOf(async () => {
          const result = streamText({ model, prompt: "hi", ...ASK, onError: () => {} })
          const parts: string[] = []
          for await (const part of result.fullStream) {
            if (part.type === "error") throw part.error
            parts.push(part.type)
          }
          return parts
        })
        // The Anthropic provider hands on the API's error object of an in-stream error; the others an APICallError.
        if (provider === "anthropic") expect(cut).toMatchObject({ type: "api_error" })
        else expect(APICallError.isInstance(cut)).toBe(true)
        expect((cut as { message: string }).message).toMatch(/upstream connection failed mid-answer/)
      },
    )
  }
})

/** The error `run` ended with (a failure of the test when it did not fail). */
async function failureOf(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run()
  } catch (error) {
    return error
  }
  throw new Error("expected the call to fail")
}
