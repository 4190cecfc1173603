/** The OpenAI Chat Completions wire format (and every OpenAI-compatible server): everything about it, as one module. */
import type { DecodeOptions } from "../stream.js"
import type { WireFormatModule } from "../types.js"
import { chatResponseEvents, OpenAIChatDecoder } from "./decode.js"
import { openAIChatDescriptor } from "./descriptor.js"
import { encodeOpenAIChat, type OpenAIChatRequest } from "./encode.js"
import { encodeChatError } from "./errors.js"
import { decodeChatRequest } from "./request-decode.js"
import { encodeChatResponse } from "./response-encode.js"
import { ChatStreamEncoder } from "./stream-encode.js"
import { toOpenAIChatTools } from "./tools.js"
import { chatWireParts } from "./wire-parts.js"

/** Whether a Chat Completions body asked for a usage chunk at the end of the stream (`stream_options.include_usage`). */
export function chatDecodeOptions(body: unknown): DecodeOptions {
  const streamOptions =
    typeof body === "object" && body !== null ? (body as Record<string, unknown>).stream_options : undefined
  const includeUsage =
    typeof streamOptions === "object" && streamOptions !== null
      ? (streamOptions as Record<string, unknown>).include_usage
      : undefined
  return includeUsage === true ? { expectUsage: true } : {}
}

/** The OpenAI Chat Completions API (`POST /chat/completions`). */
export const openAIChatFormat = {
  format: "openai-chat",
  speaks: "openai-chat",
  encode: encodeOpenAIChat,
  createDecoder: (options) => new OpenAIChatDecoder({}, options),
  responseEvents: (body) => chatResponseEvents(body),
  decodeOptions: chatDecodeOptions,
  nativeTools: (tools) => toOpenAIChatTools(tools),
  descriptor: openAIChatDescriptor,
  overhead: openAIChatDescriptor.overhead,
  decodeRequest: (body, route) => decodeChatRequest(body, "openai-chat", route),
  createStreamEncoder: (options) => new ChatStreamEncoder(options, "openai-chat"),
  encodeResponse: (events, options) => encodeChatResponse(events, options, "openai-chat"),
  encodeError: (error) => encodeChatError(error, "openai-chat"),
  wireParts: chatWireParts,
} as const satisfies WireFormatModule<OpenAIChatRequest, "openai-chat">
