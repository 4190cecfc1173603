/**
 * The whole (non-streamed) Messages API answer for the events of one response: the stream writer's payloads
 * folded into one message, as the API's own non-streaming answer carries them. A response that failed is the
 * API's error envelope instead.
 */

import type { StreamEvent } from "../stream.js"
import { obj } from "../stream.js"
import type { StreamEncodeOptions } from "../types.js"
import { type AnthropicStreamPayload, AnthropicStreamWriter } from "./stream-encode.js"

/** The Messages API body of a whole answer (or its error envelope). */
export function encodeAnthropicResponse(events: readonly StreamEvent[], options: StreamEncodeOptions): unknown {
  const writer = new AnthropicStreamWriter(options)
  const payloads: AnthropicStreamPayload[] = []
  for (const event of events) payloads.push(...writer.push(event))
  payloads.push(...writer.end())
  return foldPayloads(payloads)
}

/** Folds stream payloads into the message they stand for. */
function foldPayloads(payloads: readonly AnthropicStreamPayload[]): unknown {
  let message: Record<string, unknown> = {}
  const content: Record<string, unknown>[] = []
  const args = new Map<number, string>()
  for (const p of payloads) {
    switch (p.type) {
      case "error":
        return { type: "error", error: p.error }
      case "message_start":
        message = { ...obj(p.message) }
        break
      case "content_block_start":
        content[p.index as number] = { ...obj(p.content_block) }
        break
      case "content_block_delta": {
        const index = p.index as number
        const block = content[index]!
        const delta = obj(p.delta) ?? {}
        if (delta.type === "text_delta") block.text = `${block.text}${delta.text}`
        else if (delta.type === "thinking_delta") block.thinking = `${block.thinking}${delta.thinking}`
        else if (delta.type === "signature_delta") block.signature = delta.signature
        else if (delta.type === "compaction_delta") {
          const { type: _, ...fields } = delta
          Object.assign(block, fields)
        } else if (delta.type === "input_json_delta") args.set(index, `${args.get(index) ?? ""}${delta.partial_json}`)
        break
      }
      case "message_delta": {
        const delta = obj(p.delta) ?? {}
        message = { ...message, ...delta, usage: p.usage }
        if (p.context_management) message.context_management = p.context_management
        break
      }
    }
  }
  for (const [index, text] of args) content[index]!.input = text.trim() === "" ? {} : parseOr(text)
  // The key order of the API's own answers: content before the stop fields and usage.
  const { id, type, role, model, content: _empty, stop_reason, stop_sequence, usage, ...rest } = message
  return { id, type, role, model, content, stop_reason, stop_sequence, ...rest, usage }
}

/** Arguments that are JSON as their value; anything else as an empty input (what the API never sends). */
function parseOr(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return {}
  }
}
