/**
 * Structured output in OpenAI's two shapes, both ways: Chat's `response_format` (`{type, json_schema: {name,
 * schema, strict, description}}`) and Responses' `text.format` (`{type, name, schema, strict, description}`, flat).
 * `text` is the default and has no option; `json_object` is any JSON object; `json_schema` a schema to match.
 */

import { addSource } from "../carried.js"
import { obj, str } from "../stream.js"
import type { RequestPart, ResponseFormat } from "../types.js"

/** Chat Completions' `response_format`, as the encoder writes it. */
export type ChatResponseFormat =
  | { type: "json_object" }
  | {
      type: "json_schema"
      json_schema: { name: string; schema?: Record<string, unknown>; strict?: boolean; description?: string }
    }

/** Responses' `text.format`, as the encoder writes it. */
export type ResponsesTextFormat =
  | { type: "json_object" }
  | { type: "json_schema"; name: string; schema: Record<string, unknown>; strict?: boolean; description?: string }

/** The name a schema gets when the client gave none (OpenAI requires one). */
export const DEFAULT_SCHEMA_NAME = "response"

/** The schema part of a response format, with OpenAI's optional fields only when set. */
function schemaFields(format: Extract<ResponseFormat, { type: "json-schema" }>) {
  return {
    name: format.name ?? DEFAULT_SCHEMA_NAME,
    schema: format.schema,
    ...(format.strict !== undefined ? { strict: format.strict } : {}),
    ...(format.description !== undefined ? { description: format.description } : {}),
  }
}

/** A response format as Chat's `response_format`. */
export function toChatResponseFormat(format: ResponseFormat): ChatResponseFormat {
  return format.type === "json" ? { type: "json_object" } : { type: "json_schema", json_schema: schemaFields(format) }
}

/** A response format as Responses' `text.format`. */
export function toResponsesTextFormat(format: ResponseFormat): ResponsesTextFormat {
  return format.type === "json" ? { type: "json_object" } : { type: "json_schema", ...schemaFields(format) }
}

/** Where reading a format notes what it did not model and which paths each part came from. */
export interface FormatSink {
  unmodeled: string[]
  sources: Partial<Record<RequestPart, string[]>>
}

/**
 * Reads an OpenAI format object at `at`: `flat` for Responses (`name`, `schema` beside `type`), else Chat's
 * (`json_schema: {…}`). `text` gives no option; other types and unknown keys are unmodeled.
 */
export function fromOpenAIFormat(
  value: unknown,
  at: string,
  flat: boolean,
  sink: FormatSink,
): ResponseFormat | undefined {
  if (value === undefined || value === null) return undefined
  const format = obj(value)
  if (format?.type === "text" && Object.keys(format).length === 1) return undefined
  if (format?.type === "json_object" && Object.keys(format).length === 1) {
    addSource(sink.sources, "responseFormat", at)
    return { type: "json" }
  }
  const inner = flat ? format : obj(format?.json_schema)
  const innerAt = flat ? at : `${at}.json_schema`
  const schema = obj(inner?.schema)
  if (format?.type !== "json_schema" || !inner || !schema) {
    sink.unmodeled.push(at)
    return undefined
  }
  const known = flat ? ["type", "name", "schema", "strict", "description"] : ["type", "json_schema"]
  for (const key of Object.keys(format)) if (!known.includes(key)) sink.unmodeled.push(`${at}.${key}`)
  if (!flat)
    for (const key of Object.keys(inner))
      if (!["name", "schema", "strict", "description"].includes(key)) sink.unmodeled.push(`${innerAt}.${key}`)
  const out: ResponseFormat = { type: "json-schema", schema }
  const name = str(inner.name)
  if (name !== undefined) out.name = name
  const description = str(inner.description)
  if (description !== undefined) out.description = description
  if (typeof inner.strict === "boolean") out.strict = inner.strict
  addSource(sink.sources, "responseFormat", at)
  addSource(sink.sources, "responseFormat.schema", `${innerAt}.schema`)
  return out
}
