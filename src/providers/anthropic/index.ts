/** The Anthropic Messages wire format: everything about it, as one module. */

import type { WireFormatModule } from "../types.js"
import { AnthropicDecoder, anthropicResponseEvents } from "./decode.js"
import { anthropicDescriptor } from "./descriptor.js"
import { type AnthropicRequest, encodeAnthropic } from "./encode.js"
import { encodeAnthropicError } from "./errors.js"
import { decodeAnthropicRequest } from "./request-decode.js"
import { encodeAnthropicResponse } from "./response-encode.js"
import { createAnthropicStreamEncoder } from "./stream-encode.js"
import { toAnthropicTools } from "./tools.js"
import { anthropicWireParts } from "./wire-parts.js"

/** The Anthropic Messages API (`POST /v1/messages`). */
export const anthropicFormat = {
  format: "anthropic",
  speaks: "anthropic",
  encode: encodeAnthropic,
  createDecoder: () => new AnthropicDecoder(),
  responseEvents: anthropicResponseEvents,
  decodeOptions: () => ({}),
  nativeTools: toAnthropicTools,
  descriptor: anthropicDescriptor,
  overhead: anthropicDescriptor.overhead,
  decodeRequest: decodeAnthropicRequest,
  createStreamEncoder: createAnthropicStreamEncoder,
  encodeResponse: encodeAnthropicResponse,
  encodeError: encodeAnthropicError,
  inputUsageAtStart: true,
  wireParts: anthropicWireParts,
} as const satisfies WireFormatModule<AnthropicRequest, "anthropic">
