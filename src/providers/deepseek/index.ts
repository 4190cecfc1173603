/** The DeepSeek wire format (OpenAI Chat with DeepSeek's additions): everything about it, as one module. */
import { OVERHEADS } from "../../history/tokens.js"
import { toOpenAIChatTools } from "../../tools/native.js"
import { chatDecodeOptions } from "../openai-chat/index.js"
import type { WireFormatModule } from "../types.js"
import { createDeepSeekDecoder, deepseekResponseEvents } from "./decode.js"
import { type DeepSeekRequest, encodeDeepSeek } from "./encode.js"

/** DeepSeek's Chat Completions API (`POST /chat/completions`). */
export const deepseekFormat = {
  format: "deepseek",
  speaks: "openai-chat",
  encode: encodeDeepSeek,
  createDecoder: createDeepSeekDecoder,
  responseEvents: deepseekResponseEvents,
  decodeOptions: chatDecodeOptions,
  nativeTools: (tools) => toOpenAIChatTools(tools),
  overhead: OVERHEADS.deepseek,
} as const satisfies WireFormatModule<DeepSeekRequest, "openai-chat">
