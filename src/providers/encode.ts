/**
 * The request side of the wire layer: one prompt and one history, encoded for any wire format.
 * Every encoder runs the same portability pass first (portability.ts), then writes its provider's body.
 * The encoder of each format is found in the format table (formats.ts).
 */
import type { BuiltInWireFormat, WireFormat } from "./descriptors.js"
import { formatModule, type RequestBodies } from "./formats.js"
import type { EncodeInput, EncodeResult, WireFormatModule } from "./types.js"

export type { ToolCalling } from "../tools/tool-calling.js"
export type { RequestBodies } from "./formats.js"
export type {
  EncodeInput,
  EncodeOptions,
  EncodeResult,
  PromptInput,
  ReasoningEffort,
  ThinkingOptions,
  ToolChoice,
} from "./types.js"

/** Encodes a request for `format` (a built-in or registered format's name, or a format module). */
export function encodeRequest<F extends BuiltInWireFormat>(
  format: F,
  input: EncodeInput,
): EncodeResult<RequestBodies[F]>
export function encodeRequest<Body>(format: WireFormatModule<Body>, input: EncodeInput): EncodeResult<Body>
export function encodeRequest(format: WireFormat | WireFormatModule, input: EncodeInput): EncodeResult<unknown>
export function encodeRequest(format: WireFormat | WireFormatModule, input: EncodeInput): EncodeResult<unknown> {
  return formatModule(format).encode(input)
}
