/**
 * `GET /v1/models` (Anthropic and OpenAI clients share the path; the Anthropic SDK sends `anthropic-version`)
 * and Gemini's `GET /v1beta/models`: with routes, the model names the routes match literally, in the
 * client's list shape; without, the list of the client's own provider, forwarded.
 */
import type { IncomingHttpHeaders } from "node:http"
import type { SpokenFormat } from "../providers/formats.js"

/** The client API a model-list request speaks: Gemini by its path, Anthropic by its version header, else OpenAI. */
export function modelListFormat(path: string, headers: IncomingHttpHeaders): SpokenFormat {
  if (/^\/v1(beta|alpha)\//.test(`${path}/`)) return "gemini"
  return headers["anthropic-version"] !== undefined ? "anthropic" : "openai-chat"
}

/** A model list body in the shape of the client's API (Chat and Responses clients share OpenAI's). */
export const MODEL_LIST_SHAPES: Record<SpokenFormat, (ids: readonly string[]) => unknown> = {
  anthropic: (ids) => ({
    data: ids.map((id) => ({ type: "model", id, display_name: id, created_at: "1970-01-01T00:00:00Z" })),
    has_more: false,
    first_id: ids[0] ?? null,
    last_id: ids.at(-1) ?? null,
  }),
  "openai-chat": (ids) => ({
    object: "list",
    data: ids.map((id) => ({ id, object: "model", created: 0, owned_by: "promptline" })),
  }),
  "openai-responses": (ids) => ({
    object: "list",
    data: ids.map((id) => ({ id, object: "model", created: 0, owned_by: "promptline" })),
  }),
  gemini: (ids) => ({
    models: ids.map((id) => ({
      name: `models/${id}`,
      displayName: id,
      supportedGenerationMethods: ["generateContent", "streamGenerateContent", "countTokens"],
    })),
  }),
}

/** The model names routes match literally (patterns with `*` or `?` name no one model). */
export function routedModelNames(routes: readonly { match: string }[]): string[] {
  return [...new Set(routes.map((r) => r.match).filter((m) => !/[*?]/.test(m)))]
}
