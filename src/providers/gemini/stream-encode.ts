/**
 * Gemini answers written from normalized events: a streamed answer as server-sent events (`alt=sse`: one
 * `data:` line per chunk) or as the JSON array Gemini streams without it (`[` + chunks joined by `,\r\n` + `]`,
 * written progressively), and a whole `generateContent` answer with the parts of the stream merged.
 *
 * An error inside a server-sent stream is written twice, as the last bytes of the answer: as a `data:` event
 * (what SSE readers such as the AI SDK's see) and then as the bare JSON body with no `data:` prefix and no blank
 * line after it. `@google/genai` (and Gemini CLI, which reads through it) reads a `data:` error as an empty chunk;
 * it raises only on a read that is a whole JSON object with an `error` whose `code` is 4xx/5xx (an `ApiError` with
 * that status), or, when the bare body arrives in the same read as the bytes before it, on the unterminated text
 * it is left holding at the end ("Incomplete JSON segment at the end"). SSE readers drop an unterminated last
 * line, so they see the error once.
 */
import type { StreamEvent } from "../stream.js"
import type { StreamEncodeOptions, StreamEncoder } from "../types.js"
import { AnswerChunks, type AnswerPart } from "./answer-chunks.js"

/** A stream encoder for one Gemini answer (`options.sse` picks server-sent events over the JSON array). */
export function createGeminiStreamEncoder(options: StreamEncodeOptions): StreamEncoder {
  let out = ""
  let count = 0
  const sse = options.sse === true
  const chunks = new AnswerChunks(options, (chunk) => {
    const json = JSON.stringify(chunk)
    // An error is the last chunk (AnswerChunks writes nothing after it).
    if (sse) out += chunk.error === undefined ? `data: ${json}\r\n\r\n` : `data: ${json}\r\n\r\n${json}`
    else out += `${count === 0 ? "[" : ",\r\n"}${json}`
    count++
  })
  const take = () => {
    const text = out
    out = ""
    return text
  }
  return {
    push(event) {
      chunks.push(event)
      return take()
    },
    end() {
      chunks.end()
      if (!sse) out += count === 0 ? "[]" : "]"
      return take()
    },
  }
}

/**
 * The whole answer of a `generateContent` call: every chunk's parts in one candidate, adjacent text of the same
 * kind merged, with the last chunk's finish reason and usage. An error among the events makes the answer that
 * error's body.
 */
export function encodeGeminiResponse(events: readonly StreamEvent[], options: StreamEncodeOptions): unknown {
  const collected: Record<string, unknown>[] = []
  const chunks = new AnswerChunks(options, (chunk) => collected.push(chunk))
  for (const event of events) chunks.push(event)
  chunks.end()
  const error = collected.find((c) => c.error !== undefined)
  if (error) return error
  const parts: AnswerPart[] = []
  let candidate: Record<string, unknown> = {}
  for (const chunk of collected) {
    candidate = (chunk.candidates as Record<string, unknown>[])[0]!
    for (const part of (candidate.content as { parts: AnswerPart[] }).parts) merge(parts, part)
  }
  const last = collected.at(-1)
  const { content: _content, ...rest } = candidate
  const response: Record<string, unknown> = {
    candidates: [{ content: { parts, role: "model" }, ...rest, index: 0 }],
  }
  if (last?.usageMetadata) response.usageMetadata = last.usageMetadata
  response.modelVersion = options.model
  response.responseId = last?.responseId ?? options.id ?? "promptline-response"
  return response
}

/**
 * Adds a part, joining it to the previous one when both are text of the same kind: thoughts while the previous
 * carries no signature, other text while the new one carries none (a signature on a text part is read as an
 * empty thinking block before that text, so it must stay at the start). Empty text without a signature is
 * dropped; a signature-only part joins the text after it.
 */
function merge(parts: AnswerPart[], part: AnswerPart): void {
  if (part.text === "" && part.thoughtSignature === undefined) return
  const prev = parts.at(-1)
  const joinable =
    prev !== undefined &&
    typeof prev.text === "string" &&
    typeof part.text === "string" &&
    part.text !== "" &&
    prev.thought === part.thought &&
    // A thought's signature closes its block; a text's signature stands for an empty block before the text.
    (part.thought === true ? prev.thoughtSignature === undefined : part.thoughtSignature === undefined)
  if (!joinable) {
    parts.push({ ...part })
    return
  }
  prev.text = `${prev.text}${part.text}`
  if (part.thoughtSignature !== undefined) prev.thoughtSignature = part.thoughtSignature
}
