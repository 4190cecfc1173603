/**
 * Translate mode, plain text: each official SDK client → the gateway → each upstream format, one text turn
 * streamed and one answered whole. The client reads the text and the usage the upstream reported, in its own
 * SDK's terms.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  CLIENTS,
  type Client,
  FORMATS,
  type Matrix,
  requestsDuring,
  sdkClients,
  spokenFormat,
  startMatrix,
} from "./test-helpers/matrix.js"

const TEXT = "Plain answer, ünïcödé 🎉."
const USAGE = { input: 31, output: 9, cacheRead: 12 }
/** The usage each client's API reports: OpenAI and Gemini count cache reads in the prompt, Anthropic apart. */
const EXPECTED: Record<Client, { input: number; output: number; cached: number }> = {
  anthropic: { input: 31, output: 9, cached: 12 },
  "openai-chat": { input: 43, output: 9, cached: 12 },
  "openai-responses": { input: 43, output: 9, cached: 12 },
  gemini: { input: 43, output: 9, cached: 12 },
}

let matrix: Matrix
beforeAll(async () => {
  matrix = await startMatrix(
    CLIENTS.flatMap(() => FORMATS.flatMap(() => [0, 1].map(() => ({ text: TEXT, usage: USAGE })))),
  )
})
afterAll(async () => {
  await matrix?.close()
})

interface Answer {
  text: string
  input: number | undefined
  output: number | undefined
  cached: number | undefined | null
}

/** One text turn with the client's SDK, streamed or not; the text and usage it read. */
async function ask(client: Client, model: string, stream: boolean): Promise<Answer> {
  const sdk = sdkClients(matrix.gateway)
  if (client === "anthropic") {
    const body = { model, max_tokens: 100, messages: [{ role: "user" as const, content: "say it" }] }
    const message = stream
      ? await sdk.anthropic.messages.stream(body).finalMessage()
      : await sdk.anthropic.messages.create(body)
    const text = message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("")
    const { input_tokens, output_tokens, cache_read_input_tokens } = message.usage
    return { text, input: input_tokens, output: output_tokens, cached: cache_read_input_tokens }
  }
  if (client === "openai-chat") {
    const messages = [{ role: "user" as const, content: "say it" }]
    const completion = stream
      ? await sdk.openai.chat.completions
          .stream({ model, messages, stream_options: { include_usage: true } })
          .finalChatCompletion()
      : await sdk.openai.chat.completions.create({ model, messages })
    const usage = completion.usage
    return {
      text: completion.choices[0]!.message.content ?? "",
      input: usage?.prompt_tokens,
      output: usage?.completion_tokens,
      cached: usage?.prompt_tokens_details?.cached_tokens,
    }
  }
  if (client === "openai-responses") {
    const response = stream
      ? await sdk.openai.responses.stream({ model, input: "say it" }).finalResponse()
      : await sdk.openai.responses.create({ model, input: "say it" })
    const usage = response.usage
    return {
      text: response.output_text,
      input: usage?.input_tokens,
      output: usage?.output_tokens,
      cached: usage?.input_tokens_details.cached_tokens,
    }
  }
  const contents = [{ role: "user", parts: [{ text: "say it" }] }]
  if (!stream) {
    const answer = await sdk.gemini.models.generateContent({ model, contents })
    const usage = answer.usageMetadata
    return {
      text: answer.text ?? "",
      input: usage?.promptTokenCount,
      output: usage?.candidatesTokenCount,
      cached: usage?.cachedContentTokenCount,
    }
  }
  let text = ""
  let usage: { promptTokenCount?: number; candidatesTokenCount?: number; cachedContentTokenCount?: number } | undefined
  for await (const chunk of await sdk.gemini.models.generateContentStream({ model, contents })) {
    text += chunk.text ?? ""
    if (chunk.usageMetadata) usage = chunk.usageMetadata
  }
  return {
    text,
    input: usage?.promptTokenCount,
    output: usage?.candidatesTokenCount,
    cached: usage?.cachedContentTokenCount,
  }
}

describe("translate mode: a plain text turn, every client SDK against every upstream format", () => {
  for (const client of CLIENTS) {
    for (const upstream of FORMATS) {
      it(`${client} client → ${upstream} upstream: the text and the upstream's usage, streamed and whole`, async () => {
        for (const stream of [true, false]) {
          const { result, seen } = await requestsDuring(matrix.replay, () => ask(client, `to-${upstream}`, stream))
          expect([stream, result]).toEqual([stream, { text: TEXT, ...EXPECTED[client] }])
          expect(seen.map((r) => [r.format, r.outcome, r.status])).toEqual([[spokenFormat(upstream), "answered", 200]])
        }
      })
    }
  }
})
