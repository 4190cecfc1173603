/** The DeepSeek wire format (OpenAI Chat with DeepSeek's additions): everything about it, as one module. */
import { encodeChatError } from "../openai-chat/errors.js"
import { chatDecodeOptions } from "../openai-chat/index.js"
import { decodeChatRequest } from "../openai-chat/request-decode.js"
import { encodeChatResponse } from "../openai-chat/response-encode.js"
import { ChatStreamEncoder } from "../openai-chat/stream-encode.js"
import { toOpenAIChatTools } from "../openai-chat/tools.js"
import { chatWireParts } from "../openai-chat/wire-parts.js"
import type { WireFormatModule } from "../types.js"
import { createDeepSeekDecoder, deepseekResponseEvents } from "./decode.js"
import { deepseekDescriptor } from "./descriptor.js"
import { type DeepSeekRequest, encodeDeepSeek } from "./encode.js"

/**
 * DeepSeek's Chat Completions API (`POST /chat/completions`). Serving reuses the Chat request decoder and stream
 * encoder in DeepSeek's flavour: `thinking` and `reasoning_content` read, usage with cache hit and miss counts.
 */
export const deepseekFormat = {
  format: "deepseek",
  speaks: "openai-chat",
  encode: encodeDeepSeek,
  createDecoder: createDeepSeekDecoder,
  responseEvents: deepseekResponseEvents,
  decodeOptions: chatDecodeOptions,
  nativeTools: (tools) => toOpenAIChatTools(tools),
  descriptor: deepseekDescriptor,
  overhead: deepseekDescriptor.overhead,
  decodeRequest: (body, route) => decodeChatRequest(body, "deepseek", route),
  createStreamEncoder: (options) => new ChatStreamEncoder(options, "deepseek"),
  encodeResponse: (events, options) => encodeChatResponse(events, options, "deepseek"),
  encodeError: (error) => encodeChatError(error, "deepseek"),
  wireParts: chatWireParts,
} as const satisfies WireFormatModule<DeepSeekRequest, "openai-chat">
