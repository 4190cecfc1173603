/** The whole (non-streamed) Responses answer: the final response object a stream of the same events ends with. */
import type { StreamEvent } from "../stream.js"
import { type ResponsesStreamEncodeOptions, ResponsesStreamEncoder } from "./stream-encode.js"

/** The whole (non-streamed) response object for the events of one response. */
export function encodeResponsesResponse(
  events: readonly StreamEvent[],
  options: ResponsesStreamEncodeOptions,
): Record<string, unknown> {
  const encoder = new ResponsesStreamEncoder(options)
  for (const event of events) encoder.push(event)
  encoder.end()
  // end() always writes the terminal event, which sets the final object.
  return encoder.final ?? {}
}
