/** The OpenAI Responses wire format: everything about it, as one module. */

import type { WireFormatModule } from "../types.js"
import { OpenAIResponsesDecoder, responsesResponseEvents } from "./decode.js"
import { openAIResponsesDescriptor } from "./descriptor.js"
import { encodeOpenAIResponses, type OpenAIResponsesRequest } from "./encode.js"
import { encodeResponsesError } from "./errors.js"
import { decodeOpenAIResponsesRequest } from "./request-decode.js"
import { encodeResponsesResponse } from "./response-encode.js"
import { type ResponsesStreamEncodeOptions, ResponsesStreamEncoder } from "./stream-encode.js"
import { toOpenAIResponsesTools } from "./tools.js"
import { responsesWireParts } from "./wire-parts.js"

/** The OpenAI Responses API (`POST /responses`). */
export const openAIResponsesFormat = {
  format: "openai-responses",
  speaks: "openai-responses",
  encode: encodeOpenAIResponses,
  createDecoder: () => new OpenAIResponsesDecoder(),
  responseEvents: responsesResponseEvents,
  decodeOptions: () => ({}),
  nativeTools: (tools) => toOpenAIResponsesTools(tools),
  descriptor: openAIResponsesDescriptor,
  overhead: openAIResponsesDescriptor.overhead,
  decodeRequest: decodeOpenAIResponsesRequest,
  createStreamEncoder: (options: ResponsesStreamEncodeOptions) => new ResponsesStreamEncoder(options),
  encodeResponse: encodeResponsesResponse,
  encodeError: encodeResponsesError,
  wireParts: responsesWireParts,
} as const satisfies WireFormatModule<OpenAIResponsesRequest, "openai-responses">
