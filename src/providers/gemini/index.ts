/** The Gemini generateContent wire format: everything about it, as one module. */

import type { WireFormatModule } from "../types.js"
import { GeminiDecoder, geminiResponseEvents } from "./decode.js"
import { geminiDescriptor } from "./descriptor.js"
import { encodeGemini, type GeminiRequest } from "./encode.js"
import { encodeGeminiError } from "./errors.js"
import { decodeGeminiRequest } from "./request-decode.js"
import { createGeminiStreamEncoder, encodeGeminiResponse } from "./stream-encode.js"
import { geminiNativeTools } from "./tools.js"
import { geminiWireParts } from "./wire-parts.js"

/** The Gemini API (`models/{model}:generateContent` and `:streamGenerateContent`). */
export const geminiFormat = {
  format: "gemini",
  speaks: "gemini",
  encode: encodeGemini,
  createDecoder: () => new GeminiDecoder(),
  responseEvents: geminiResponseEvents,
  decodeOptions: () => ({}),
  nativeTools: geminiNativeTools,
  descriptor: geminiDescriptor,
  overhead: geminiDescriptor.overhead,
  decodeRequest: decodeGeminiRequest,
  createStreamEncoder: createGeminiStreamEncoder,
  encodeResponse: encodeGeminiResponse,
  encodeError: encodeGeminiError,
  wireParts: geminiWireParts,
} as const satisfies WireFormatModule<GeminiRequest, "gemini">
