/**
 * Gemini tool declarations in both directions. The way out (`toGeminiTools`, the OpenAPI-subset conversion)
 * stays in tools/native.ts because the prompt builder hashes native tools and may not import from providers/
 * (the layer rule); this file re-exports it and holds the way back: a client's `functionDeclarations` as
 * client tools, with `parameters` in Gemini's subset turned back into JSON Schema.
 */

import { toGeminiTools } from "../../tools/native.js"
import type { GeminiTool } from "../../tools/native-types.js"
import type { EnabledTool, JsonSchema } from "../../tools/spec.js"
import { clientTool } from "../client-tool.js"
import { camelCase, invalidRequest, otherKeys, type RecordOf, recordAt, stringAt } from "./fields.js"
import { geminiField, snakeCase } from "./request-shape.js"

export { toGeminiTools }

/** Tools in Gemini's native declaration shape (the module's `nativeTools`). */
export const geminiNativeTools = (tools: readonly EnabledTool[]): GeminiTool[] => toGeminiTools(tools)

/** Subset type names → JSON Schema type names (`TYPE_UNSPECIFIED` has none). */
const TYPES: Record<string, string> = {
  STRING: "string",
  NUMBER: "number",
  INTEGER: "integer",
  BOOLEAN: "boolean",
  ARRAY: "array",
  OBJECT: "object",
  NULL: "null",
}

/** Count limits the subset writes as int64 strings; JSON Schema wants numbers. */
const COUNTS = new Set(["minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"])

/**
 * A schema in Gemini's OpenAPI 3.0 subset as JSON Schema: lowercase types, `nullable` as a `null` type, count
 * limits as numbers, `properties`, `items` and `anyOf` converted recursively. Other keywords pass unchanged
 * (snake_case names are read as their camelCase twins).
 */
export function fromGeminiSchema(schema: Record<string, unknown>): JsonSchema {
  const out: JsonSchema = {}
  let nullable = false
  for (const [rawKey, value] of Object.entries(schema)) {
    const key = camelCase(rawKey)
    switch (key) {
      case "type": {
        const mapped = typeof value === "string" ? TYPES[value.toUpperCase()] : undefined
        if (mapped) out.type = mapped
        break
      }
      case "nullable":
        nullable = value === true
        break
      case "properties": {
        const props: Record<string, JsonSchema> = {}
        for (const [name, sub] of Object.entries(recordOrEmpty(value)))
          props[name] = fromGeminiSchema(recordOrEmpty(sub))
        out.properties = props
        break
      }
      case "items":
        out.items = fromGeminiSchema(recordOrEmpty(value))
        break
      case "anyOf":
        if (Array.isArray(value)) out.anyOf = value.map((s) => fromGeminiSchema(recordOrEmpty(s)))
        break
      default:
        if (COUNTS.has(key) && typeof value === "string" && /^\d+$/.test(value)) out[key] = Number(value)
        else out[key] = structuredClone(value)
    }
  }
  if (nullable) {
    // A typed schema says it as a `null` type; elsewhere `nullable` stays (JSON Schema validators ignore it).
    if (typeof out.type === "string") out.type = [out.type, "null"]
    else out.nullable = true
  }
  return out
}

/** JSON Schema keywords whose value is one schema, a list of schemas, or a record of schemas. */
const ONE_SCHEMA = ["items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames"]
const SCHEMA_LISTS = ["anyOf", "oneOf", "allOf", "prefixItems"]
const SCHEMA_RECORDS = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]

/**
 * A client's JSON Schema (`responseJsonSchema`, `parametersJsonSchema`) with Gemini's upper-case type names
 * (`OBJECT`, `STRING`: Gemini CLI writes them, and Gemini takes them) as JSON Schema's own lower-case ones, in every
 * nested schema; everything else is copied unchanged. Another provider refuses `"type": "OBJECT"`.
 */
export function normalizeJsonSchemaTypes(schema: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  const sub = (value: unknown) =>
    typeof value === "object" && value !== null && !Array.isArray(value)
      ? normalizeJsonSchemaTypes(value as Record<string, unknown>)
      : structuredClone(value)
  const typeName = (value: unknown) => (typeof value === "string" && TYPES[value] ? TYPES[value] : value)
  for (const [key, value] of Object.entries(schema)) {
    if (key === "type") out.type = Array.isArray(value) ? value.map(typeName) : typeName(value)
    else if (ONE_SCHEMA.includes(key)) out[key] = sub(value)
    else if (SCHEMA_LISTS.includes(key) && Array.isArray(value)) out[key] = value.map(sub)
    else if (SCHEMA_RECORDS.includes(key) && typeof value === "object" && value !== null && !Array.isArray(value))
      out[key] = Object.fromEntries(Object.entries(value).map(([name, s]) => [name, sub(s)]))
    else out[key] = structuredClone(value)
  }
  return out
}

function recordOrEmpty(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
}

/** The fields of a function declaration promptline reads; the rest (`response`, `behavior`, …) are unmodeled. */
const DECLARATION_FIELDS = new Set(["name", "description", "parameters", "parametersJsonSchema"])

/** Client tools read from a body's `tools`: function declarations become tools, every other tool is unmodeled. */
export function decodeGeminiTools(value: unknown, unmodeled: string[]): EnabledTool[] {
  if (value === undefined) return []
  if (!Array.isArray(value)) throw invalidRequest("tools", "must be a list")
  const tools: EnabledTool[] = []
  value.forEach((entry, i) => {
    const tool = recordAt(entry, `tools[${i}]`)
    for (const key of Object.keys(tool)) {
      if (key !== "functionDeclarations" && key !== "function_declarations") unmodeled.push(`tools[${i}].${key}`)
    }
    const declarations = geminiField(tool, "functionDeclarations")
    if (declarations === undefined) return
    const key = Object.hasOwn(tool, "functionDeclarations") ? "functionDeclarations" : snakeCase("functionDeclarations")
    if (!Array.isArray(declarations)) throw invalidRequest(`tools[${i}].${key}`, "must be a list")
    declarations.forEach((d, j) => {
      const path = `tools[${i}].${key}[${j}]`
      tools.push(declarationTool(recordAt(d, path), path, unmodeled))
    })
  })
  return tools
}

function declarationTool(declaration: RecordOf, path: string, unmodeled: string[]): EnabledTool {
  const name = stringAt(declaration, "name", path)
  if (name === undefined) throw invalidRequest(`${path}.name`, "is required")
  unmodeled.push(...otherKeys(declaration, DECLARATION_FIELDS, path))
  const description = stringAt(declaration, "description", path) ?? ""
  const jsonSchema = geminiField(declaration, "parametersJsonSchema")
  const subset = geminiField(declaration, "parameters")
  const schema =
    jsonSchema !== undefined
      ? (normalizeJsonSchemaTypes(recordAt(jsonSchema, `${path}.parametersJsonSchema`)) as JsonSchema)
      : subset !== undefined
        ? fromGeminiSchema(recordAt(subset, `${path}.parameters`))
        : {}
  return clientTool(name, description, {
    ...schema,
    type: "object",
    properties: (schema.properties as Record<string, JsonSchema> | undefined) ?? {},
    required: Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === "string") : [],
  })
}
