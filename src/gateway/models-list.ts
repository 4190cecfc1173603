/**
 * `GET /v1/models` (Anthropic and OpenAI clients share the path; the Anthropic SDK sends `anthropic-version`)
 * and Gemini's `GET /v1beta/models`: with routes, the model names the routes match literally, in the
 * client's list shape (its descriptor's `api.modelList`); without, the list of the client's own provider, forwarded.
 */
import type { WireFormatDescriptor } from "../providers/descriptor.js"

/** A model list body in the shape of the client's API (Chat and Responses clients share OpenAI's). */
export function modelList(client: WireFormatDescriptor, ids: readonly string[]): unknown {
  const shape = client.api?.modelList?.shape
  if (!shape) throw new Error(`the ${client.format} API lists no models`)
  return shape(ids)
}

/** The model names routes match literally (patterns with `*` or `?` name no one model). */
export function routedModelNames(routes: readonly { match: string }[]): string[] {
  return [...new Set(routes.map((r) => r.match).filter((m) => !/[*?]/.test(m)))]
}
