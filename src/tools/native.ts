/**
 * Native tool definitions: one EnabledTool, each provider's own declaration format. The JSON Schema of
 * the parameters keeps its full shape (nested objects, array items, enums, required lists, descriptions);
 * only Gemini's OpenAPI subset needs a real conversion, and a schema that subset cannot express goes out
 * as plain JSON Schema (`parametersJsonSchema`) instead of losing detail.
 */
import type { NativeToolShape, WireFormatDescriptor } from "../providers/descriptor.js"
import { descriptorOf, type WireFormat } from "../providers/descriptors.js"
import type {
  AnthropicTool,
  ChatCompletionFunctionTool,
  FunctionDeclaration,
  GeminiSchema,
  GeminiTool,
  GeminiType,
  NativeToolDefinition,
  NativeToolShapes,
  ResponsesFunctionTool,
} from "./native-types.js"
import type { EnabledTool, JsonSchema } from "./spec.js"

export type { AnthropicTool, ChatCompletionFunctionTool, GeminiTool }

/** OpenAI options: `strict` turns on structured-output checking of arguments (schema rewritten to fit). */
export interface OpenAIToolOptions {
  strict?: boolean
}

/**
 * Which Gemini field carries the parameters: `openapi` (the OpenAPI 3.0 subset, `parameters`),
 * `json-schema` (`parametersJsonSchema`), or `auto` (the subset when it expresses the schema fully).
 */
export type GeminiSchemaMode = "auto" | "openapi" | "json-schema"

export interface GeminiToolOptions {
  schema?: GeminiSchemaMode
}

const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T

/** Tools as Anthropic Messages `tools` entries (`input_schema`). */
export function toAnthropicTools(tools: readonly EnabledTool[]): AnthropicTool[] {
  return tools.map((t) => ({
    name: t.name,
    description: t.description,
    input_schema: clone(t.parameters) as AnthropicTool["input_schema"],
  }))
}

/** Tools as OpenAI Chat Completions `tools` entries (`{type: "function", function}`); DeepSeek uses the same. */
export function toOpenAIChatTools(
  tools: readonly EnabledTool[],
  options: OpenAIToolOptions = {},
): ChatCompletionFunctionTool[] {
  return tools.map((t) => ({
    type: "function",
    function: {
      name: t.name,
      description: t.description,
      parameters: (options.strict ? toStrictSchema(t.parameters) : clone(t.parameters)) as Record<string, unknown>,
      ...(options.strict ? { strict: true } : {}),
    },
  }))
}

/**
 * The fields an OpenAI function tool declares (name, description, parameters), shared by the OpenAI formats'
 * tool conversions (the Responses one lives in providers/openai-responses/tools.ts).
 */
export function openAIFunctionFields(
  tool: EnabledTool,
  options: OpenAIToolOptions = {},
): { name: string; description: string; parameters: Record<string, unknown> } {
  return {
    name: tool.name,
    description: tool.description,
    parameters: (options.strict ? toStrictSchema(tool.parameters) : clone(tool.parameters)) as Record<string, unknown>,
  }
}

/** Tools as OpenAI Responses `tools` entries (`{type: "function", name, parameters, strict}`). */
export function toOpenAIResponsesTools(
  tools: readonly EnabledTool[],
  options: OpenAIToolOptions = {},
): ResponsesFunctionTool[] {
  return tools.map((t) => ({ type: "function", ...openAIFunctionFields(t, options), strict: options.strict === true }))
}

/** Tools as Gemini `tools`: one entry holding every function declaration (empty list when no tools). */
export function toGeminiTools(tools: readonly EnabledTool[], options: GeminiToolOptions = {}): GeminiTool[] {
  if (tools.length === 0) return []
  return [{ functionDeclarations: tools.map((t) => toGeminiFunctionDeclaration(t, options)) }]
}

/** One tool as a Gemini function declaration; a tool without parameters declares none (Gemini rejects `{}`). */
export function toGeminiFunctionDeclaration(tool: EnabledTool, options: GeminiToolOptions = {}): FunctionDeclaration {
  const declaration: FunctionDeclaration = { name: tool.name, description: tool.description }
  if (Object.keys(tool.parameters.properties).length === 0) return declaration
  const mode = options.schema ?? "auto"
  if (mode === "json-schema") return { ...declaration, parametersJsonSchema: clone(tool.parameters) }
  const converted = toGeminiSchema(tool.parameters)
  if (mode === "auto" && !converted.lossless) return { ...declaration, parametersJsonSchema: clone(tool.parameters) }
  return { ...declaration, parameters: converted.schema }
}

const GEMINI_TYPES: Record<string, string> = {
  string: "STRING",
  number: "NUMBER",
  integer: "INTEGER",
  boolean: "BOOLEAN",
  array: "ARRAY",
  object: "OBJECT",
}

/** Keywords dropped on the way to Gemini's subset without changing what the model may send. */
const HARMLESS_DROPS = new Set(["$schema", "additionalProperties", "examples", "$comment"])

/**
 * Formats Gemini's subset accepts per type (its Schema reference: float/double, int32/int64, and enum or
 * date-time on strings); others are dropped (and make the conversion lossy).
 */
const GEMINI_FORMATS: Record<string, readonly string[]> = {
  STRING: ["enum", "date-time"],
  NUMBER: ["float", "double"],
  INTEGER: ["int32", "int64"],
}

/**
 * A JSON Schema in Gemini's OpenAPI 3.0 subset: upper-case types, `nullable` for `null` unions, enums as
 * strings, `oneOf` read as `anyOf`, count limits as int64 strings. `lossless` is false when something the
 * subset cannot say was dropped (free-form objects, `$ref`, `allOf`, `not`, pattern properties, ...).
 */
export function toGeminiSchema(schema: JsonSchema): { schema: GeminiSchema; lossless: boolean } {
  const state = { lossless: true }
  return { schema: convertGemini(schema, state), lossless: state.lossless }
}

function convertGemini(schema: JsonSchema, state: { lossless: boolean }): GeminiSchema {
  const out: GeminiSchema = {}
  const types = (Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type]).filter(
    (t): t is string => typeof t === "string",
  )
  const nonNull = types.filter((t) => t !== "null")
  const union = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined
  if (nonNull.length > 1) {
    // A union of plain types becomes anyOf of single-type schemas carrying the rest of the keywords.
    const { type: _t, description: _d, ...rest } = schema
    out.anyOf = nonNull.map((t) => convertGemini({ ...rest, type: t }, state))
    if (types.includes("null")) out.nullable = true
    if (typeof schema.description === "string") out.description = schema.description
    return out
  }
  const type = nonNull[0] ?? (schema.properties ? "object" : schema.items ? "array" : undefined)
  if (type !== undefined) {
    const mapped = GEMINI_TYPES[type]
    if (mapped) out.type = mapped as GeminiType
    else state.lossless = false
  }
  if (types.includes("null")) out.nullable = true
  for (const [key, value] of Object.entries(schema)) {
    switch (key) {
      case "type":
        break
      case "description":
        // An enum the subset cannot carry may already have named its values here; they follow the text.
        if (typeof value === "string") out.description = out.description ? `${value} ${out.description}` : value
        break
      case "title":
      case "pattern":
        if (typeof value === "string") out[key] = value
        break
      case "format":
        if (typeof value === "string" && out.type && GEMINI_FORMATS[out.type]?.includes(value)) out.format = value
        else state.lossless = false
        break
      case "enum":
        if (Array.isArray(value)) {
          if (value.includes(null)) out.nullable = true
          addEnum(
            out,
            value.filter((v) => v !== null),
            state,
          )
        }
        break
      case "const":
        addEnum(out, [value], state)
        break
      case "default":
        out.default = clone(value)
        break
      case "example":
        out.example = clone(value)
        break
      case "minimum":
      case "maximum":
        if (typeof value === "number") out[key] = value
        break
      case "minLength":
      case "maxLength":
      case "minItems":
      case "maxItems":
      case "minProperties":
      case "maxProperties":
        if (typeof value === "number") out[key] = String(value)
        break
      case "nullable":
        if (value === true) out.nullable = true
        break
      case "properties": {
        const props = value as Record<string, JsonSchema>
        out.properties = {}
        for (const [name, sub] of Object.entries(props)) out.properties[name] = convertGemini(sub, state)
        break
      }
      case "required":
        if (Array.isArray(value)) out.required = value.filter((v): v is string => typeof v === "string")
        break
      case "items":
        if (value && typeof value === "object" && !Array.isArray(value))
          out.items = convertGemini(value as JsonSchema, state)
        else state.lossless = false
        break
      case "anyOf":
      case "oneOf":
        out.anyOf = (union ?? []).map((s) => convertGemini(s, state))
        break
      case "propertyOrdering":
        if (Array.isArray(value)) out.propertyOrdering = value.filter((v): v is string => typeof v === "string")
        break
      case "examples":
        if (Array.isArray(value) && value.length > 0 && out.example === undefined) out.example = clone(value[0])
        break
      case "additionalProperties":
        // `false` is what the subset assumes anyway; a schema for extra keys cannot be expressed.
        if (value !== false) state.lossless = false
        break
      default:
        if (!HARMLESS_DROPS.has(key)) state.lossless = false
    }
  }
  // An object without declared properties (free-form) cannot be written in the subset.
  if (out.type === "OBJECT" && (!out.properties || Object.keys(out.properties).length === 0)) state.lossless = false
  return out
}

/**
 * Gemini takes `enum` only on STRING schemas (`format: "enum"` on an INTEGER is refused). String values become
 * a string enum (typed STRING when the schema had no type); any other value list cannot be said in the subset,
 * so it is named in the description instead and the conversion is marked lossy.
 */
function addEnum(out: GeminiSchema, values: unknown[], state: { lossless: boolean }): void {
  if (values.every((v) => typeof v === "string") && (out.type === undefined || out.type === "STRING")) {
    out.type = "STRING" as GeminiType
    out.enum = values as string[]
    return
  }
  state.lossless = false
  const allowed = `Allowed values: ${values.map((v) => JSON.stringify(v)).join(", ")}.`
  out.description = out.description ? `${out.description} ${allowed}` : allowed
}

/**
 * A JSON Schema rewritten for OpenAI strict mode: every object lists all its properties as required and
 * forbids others; a property that was optional accepts `null` instead.
 */
export function toStrictSchema(schema: JsonSchema): JsonSchema {
  return strictify(clone(schema))
}

function strictify(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = { ...schema }
  if (out.properties) {
    const required = new Set(out.required ?? [])
    const props: Record<string, JsonSchema> = {}
    for (const [name, sub] of Object.entries(out.properties)) {
      const strict = strictify(sub)
      props[name] = required.has(name) ? strict : nullable(strict)
    }
    out.properties = props
    out.required = Object.keys(props)
    out.additionalProperties = false
  }
  if (out.items && typeof out.items === "object") out.items = strictify(out.items)
  for (const key of ["anyOf", "oneOf", "allOf"] as const) {
    const list = out[key]
    if (Array.isArray(list)) out[key] = (list as JsonSchema[]).map(strictify)
  }
  return out
}

function nullable(schema: JsonSchema): JsonSchema {
  if (typeof schema.type === "string") {
    const out: JsonSchema = { ...schema, type: [schema.type, "null"] }
    if (Array.isArray(schema.enum) && !schema.enum.includes(null)) out.enum = [...schema.enum, null]
    return out
  }
  if (Array.isArray(schema.type))
    return schema.type.includes("null") ? schema : { ...schema, type: [...schema.type, "null"] }
  return { anyOf: [schema, { type: "null" }] }
}

/** Each native tool definition shape a descriptor may name (DeepSeek's names OpenAI Chat's). */
const NATIVE_TOOL_SHAPES: {
  readonly [S in NativeToolShape]: (tools: readonly EnabledTool[]) => NativeToolShapes[S][]
} = {
  anthropic: (tools) => toAnthropicTools(tools),
  "openai-chat": (tools) => toOpenAIChatTools(tools),
  "openai-responses": (tools) => toOpenAIResponsesTools(tools),
  gemini: (tools) => toGeminiTools(tools),
}

/** The enabled tools in the native definition format of a wire format (the shape its descriptor names), typed per format. */
export function toNativeTools<F extends WireFormat>(
  tools: readonly EnabledTool[],
  format: F | WireFormatDescriptor,
): NativeToolDefinition<F>[] {
  return NATIVE_TOOL_SHAPES[descriptorOf(format).nativeTools](tools) as NativeToolDefinition<F>[]
}
