/**
 * Translate mode, images: each official SDK client sends a user message with a small PNG in its own API's
 * shape; the upstream must receive the image in its own format. An upstream model that reads no images
 * (DeepSeek) gets a note in its place, and the client is told in `x-promptline-dropped`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { formatModule } from "../providers/formats.js"
import { IMAGE_OMITTED_TEXT } from "../providers/portability.js"
import {
  CLIENTS,
  type Client,
  FORMATS,
  type Matrix,
  requestsDuring,
  sdkClients,
  spokenFormat,
  startMatrix,
  UPSTREAMS,
} from "./test-helpers/matrix.js"

/** A 1×1 PNG. */
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
const ANSWER = "A single pixel."

let matrix: Matrix
beforeAll(async () => {
  matrix = await startMatrix(CLIENTS.flatMap(() => FORMATS.map(() => ({ text: ANSWER }))))
})
afterAll(async () => {
  await matrix?.close()
})

/** Sends "what is this?" with the PNG through one client's SDK; the text read and the dropped-fields header. */
async function askWithImage(client: Client, model: string): Promise<{ text: string; dropped: string | null }> {
  const sdk = sdkClients(matrix.gateway)
  if (client === "anthropic") {
    const { data, response } = await sdk.anthropic.messages
      .create({
        model,
        max_tokens: 100,
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "what is this?" },
              { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
            ],
          },
        ],
      })
      .withResponse()
    const text = data.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("")
    return { text, dropped: response.headers.get("x-promptline-dropped") }
  }
  if (client === "openai-chat") {
    const { data, response } = await sdk.openai.chat.completions
      .create({
        model,
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "what is this?" },
              { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
            ],
          },
        ],
      })
      .withResponse()
    return { text: data.choices[0]!.message.content ?? "", dropped: response.headers.get("x-promptline-dropped") }
  }
  if (client === "openai-responses") {
    const { data, response } = await sdk.openai.responses
      .create({
        model,
        input: [
          {
            role: "user",
            content: [
              { type: "input_text", text: "what is this?" },
              { type: "input_image", image_url: `data:image/png;base64,${PNG}`, detail: "auto" },
            ],
          },
        ],
      })
      .withResponse()
    return { text: data.output_text, dropped: response.headers.get("x-promptline-dropped") }
  }
  const answer = await sdk.gemini.models.generateContent({
    model,
    contents: [
      { role: "user", parts: [{ text: "what is this?" }, { inlineData: { mimeType: "image/png", data: PNG } }] },
    ],
  })
  return { text: answer.text ?? "", dropped: answer.sdkHttpResponse?.headers?.["x-promptline-dropped"] ?? null }
}

describe("translate mode: an image, every client SDK against every upstream format", () => {
  for (const client of CLIENTS) {
    for (const upstream of FORMATS) {
      it(`${client} client → ${upstream} upstream: the upstream gets the image in its format, or the client is told`, async () => {
        const { result, seen } = await requestsDuring(matrix.replay, () => askWithImage(client, `to-${upstream}`))
        expect(seen.map((r) => [r.format, r.outcome, r.problems])).toEqual([[spokenFormat(upstream), "answered", []]])
        expect(result.text).toBe(ANSWER)
        const route = upstream === "gemini" ? { model: UPSTREAMS.gemini.model } : undefined
        const user = formatModule(upstream).decodeRequest(seen[0]!.body, route).messages.at(-1)!
        if (upstream === "deepseek") {
          // DeepSeek's chat models read no images: a note takes the image's place, and the header says so.
          expect(user.content.map((b) => b.type)).toEqual(["text"])
          expect(user.content[0]).toEqual({ type: "text", text: `what is this?\n\n${IMAGE_OMITTED_TEXT}` })
          expect(result.dropped).toBe("image (deepseek-chat reads no images; replaced by a note)")
        } else {
          expect(user.content).toEqual([
            { type: "text", text: "what is this?" },
            { type: "image", mediaType: "image/png", data: PNG },
          ])
          expect(result.dropped).toBeNull()
        }
      })
    }
  }
})
