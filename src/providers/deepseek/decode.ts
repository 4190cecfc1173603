import { type ChatDialect, chatResponseEvents, OpenAIChatDecoder } from "../openai-chat/decode.js"
import type { StreamEvent } from "../stream.js"

/**
 * DeepSeek speaks the Chat Completions stream with two additions the chat decoder already reads:
 * `reasoning_content` (thinking of deepseek-reasoner and of thinking mode) and
 * `prompt_cache_hit_tokens` / `prompt_cache_miss_tokens` (input = the misses, cache read = the hits).
 * It also stops with `insufficient_system_resource` when the service cuts a generation short.
 */
export const DEEPSEEK_DIALECT: ChatDialect = {
  stops: { insufficient_system_resource: "error" },
}

/** A decoder for DeepSeek's streaming chat completions. */
export function createDeepSeekDecoder(): OpenAIChatDecoder {
  return new OpenAIChatDecoder(DEEPSEEK_DIALECT)
}

/** Turns a non-streaming DeepSeek response body into the same events a stream would give. */
export function deepseekResponseEvents(body: unknown): StreamEvent[] {
  return chatResponseEvents(body, DEEPSEEK_DIALECT)
}
