/** The OpenAI Responses wire format: everything about it, as one module. */
import { OVERHEADS } from "../../history/tokens.js"
import { toOpenAIResponsesTools } from "../../tools/native.js"
import type { WireFormatModule } from "../types.js"
import { OpenAIResponsesDecoder, responsesResponseEvents } from "./decode.js"
import { encodeOpenAIResponses, type OpenAIResponsesRequest } from "./encode.js"

/** The OpenAI Responses API (`POST /responses`). */
export const openAIResponsesFormat = {
  format: "openai-responses",
  speaks: "openai-responses",
  encode: encodeOpenAIResponses,
  createDecoder: () => new OpenAIResponsesDecoder(),
  responseEvents: responsesResponseEvents,
  decodeOptions: () => ({}),
  nativeTools: (tools) => toOpenAIResponsesTools(tools),
  overhead: OVERHEADS["openai-responses"],
} as const satisfies WireFormatModule<OpenAIResponsesRequest, "openai-responses">
