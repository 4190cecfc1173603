/**
 * Scripted conversations for the cache tests: promptline's own prompt and tools, a generated history, and
 * each request encoded with promptline's encoders for any wire format, on a simulated clock.
 */
import { generateHistory } from "../../../test/fixtures/history/generate.js"
import type { Message } from "../../history/message.js"
import { resolveModel } from "../../models/resolve.js"
import type { BuiltInWireFormat } from "../../models/types.js"
import { build } from "../../prompt/builder.js"
import { basicContext } from "../../prompt/test-helpers/contexts.js"
import { encodeRequest } from "../../providers/encode.js"
import type { EncodeOptions, PromptInput } from "../../providers/types.js"
import type { CacheRequest } from "../explain.js"

/** A model of each format with a catalog row (prices, cache rules). */
export const MODEL_OF: Record<BuiltInWireFormat, string> = {
  anthropic: "claude-sonnet-4-5",
  "openai-chat": "gpt-4o",
  "openai-responses": "gpt-5",
  gemini: "gemini-2.5-flash",
  deepseek: "deepseek-v4-pro",
}

/** promptline's default system prompt and tools. */
export function defaultPrompt(): PromptInput {
  const built = build(basicContext({ mcpServers: [] }))
  return {
    text: built.text,
    tools: built.tools,
    ...(built.contextMessage ? { contextMessage: built.contextMessage } : {}),
  }
}

/** A generated history of `messages` messages (user first, alternating). */
export function scriptHistory(messages: number, seed = 3): Message[] {
  return generateHistory({ messages, fileLines: 30, seed })
}

/** One encoded request of a scripted conversation. */
export function encoded(
  format: BuiltInWireFormat,
  prompt: PromptInput,
  messages: readonly Message[],
  at: number,
  options?: EncodeOptions,
): CacheRequest {
  const model = resolveModel(MODEL_OF[format]).model
  const { body } = encodeRequest(format, { prompt, messages, model, ...(options ? { options } : {}) })
  return { format, body: JSON.parse(JSON.stringify(body)) as unknown, at, model: model.id }
}
