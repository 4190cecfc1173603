import { type ChatFinishReasons, chatResponseEvents, OpenAIChatDecoder } from "../openai-chat/decode.js"
import type { DecodeOptions, StreamEvent } from "../stream.js"

/**
 * DeepSeek speaks the Chat Completions stream with two additions the chat decoder already reads:
 * `reasoning_content` (thinking of deepseek-reasoner and of thinking mode) and
 * `prompt_cache_hit_tokens` / `prompt_cache_miss_tokens` (input = the misses, cache read = the hits).
 * It also stops with `insufficient_system_resource` when the service cuts a generation short: a stop
 * `error` with a retryable (`server`) error, since the same request may succeed a moment later.
 */
export const DEEPSEEK_FINISH_REASONS: ChatFinishReasons = {
  failures: {
    insufficient_system_resource: {
      kind: "server",
      meaning: "DeepSeek ran short of resources and cut the generation off; the answer is incomplete",
    },
  },
}

/** A decoder for DeepSeek's streaming chat completions. */
export function createDeepSeekDecoder(options: DecodeOptions = {}): OpenAIChatDecoder {
  return new OpenAIChatDecoder(DEEPSEEK_FINISH_REASONS, options)
}

/** Turns a non-streaming DeepSeek response body into the same events a stream would give. */
export function deepseekResponseEvents(body: unknown): StreamEvent[] {
  return chatResponseEvents(body, DEEPSEEK_FINISH_REASONS)
}
