/** The Gemini generateContent wire format: everything about it, as one module. */
import { OVERHEADS } from "../../history/tokens.js"
import { toGeminiTools } from "../../tools/native.js"
import type { WireFormatModule } from "../types.js"
import { GeminiDecoder, geminiResponseEvents } from "./decode.js"
import { encodeGemini, type GeminiRequest } from "./encode.js"

/** The Gemini API (`models/{model}:streamGenerateContent`). */
export const geminiFormat = {
  format: "gemini",
  speaks: "gemini",
  encode: encodeGemini,
  createDecoder: () => new GeminiDecoder(),
  responseEvents: geminiResponseEvents,
  decodeOptions: () => ({}),
  nativeTools: (tools) => toGeminiTools(tools),
  overhead: OVERHEADS.gemini,
} as const satisfies WireFormatModule<GeminiRequest, "gemini">
