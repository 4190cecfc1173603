/**
 * The native tool definition of each wire format, declared here in our own words so the published types
 * need none of the provider SDKs. Each is the part of the provider's published shape promptline writes;
 * native-types.test.ts checks that each stays assignable to the official SDK's type.
 */
import type { NativeToolShape } from "../providers/descriptor.js"
import type { BuiltInWireFormat, DescriptorOf, WireFormat } from "../providers/descriptors.js"
import type { JsonSchema } from "./spec.js"

/** Anthropic's `cache_control` marker: the prompt prefix up to here may be cached (`ttl` default 5 minutes). */
export interface AnthropicCacheControl {
  type: "ephemeral"
  ttl?: "5m" | "1h"
}

/** The JSON Schema of an Anthropic tool's input: always an object schema. */
export interface AnthropicInputSchema {
  type: "object"
  properties?: unknown
  required?: string[]
  [keyword: string]: unknown
}

/** An Anthropic Messages `tools` entry for a tool the client runs. */
export interface AnthropicTool {
  name: string
  description?: string
  input_schema: AnthropicInputSchema
  /** Sent only when tool search is on: the model finds the tool before it can call it. */
  defer_loading?: boolean
  cache_control?: AnthropicCacheControl
}

/** An OpenAI Chat Completions `tools` entry (DeepSeek takes the same). */
export interface ChatCompletionFunctionTool {
  type: "function"
  function: {
    name: string
    description?: string
    parameters?: Record<string, unknown>
    /** Structured-output checking of the arguments (the schema must then be in strict form). */
    strict?: boolean
  }
}

/** An OpenAI Responses `tools` entry for a function. */
export interface ResponsesFunctionTool {
  type: "function"
  name: string
  description?: string
  parameters: Record<string, unknown> | null
  strict: boolean | null
}

/** The type names of Gemini's OpenAPI 3.0 schema subset. */
export type GeminiType = "TYPE_UNSPECIFIED" | "STRING" | "NUMBER" | "INTEGER" | "BOOLEAN" | "ARRAY" | "OBJECT" | "NULL"

/** A schema in Gemini's OpenAPI 3.0 subset: upper-case types, `nullable`, counts as int64 strings. */
export interface GeminiSchema {
  type?: GeminiType
  format?: string
  title?: string
  description?: string
  nullable?: boolean
  enum?: string[]
  default?: unknown
  example?: unknown
  pattern?: string
  minimum?: number
  maximum?: number
  minLength?: string
  maxLength?: string
  minItems?: string
  maxItems?: string
  minProperties?: string
  maxProperties?: string
  properties?: Record<string, GeminiSchema>
  required?: string[]
  propertyOrdering?: string[]
  items?: GeminiSchema
  anyOf?: GeminiSchema[]
}

/** One Gemini function declaration: parameters in the OpenAPI subset, or as plain JSON Schema. */
export interface FunctionDeclaration {
  name?: string
  description?: string
  parameters?: GeminiSchema
  parametersJsonSchema?: JsonSchema
}

/** A Gemini `tools` entry holding function declarations. */
export interface GeminiTool {
  functionDeclarations?: FunctionDeclaration[]
}

/** The native tool definition type of each wire format (DeepSeek speaks OpenAI Chat's). */
export interface NativeToolShapes {
  anthropic: AnthropicTool
  "openai-chat": ChatCompletionFunctionTool
  "openai-responses": ResponsesFunctionTool
  gemini: GeminiTool
}

/** The native tool definition type of each wire format: the shape its descriptor names (DeepSeek: OpenAI Chat's). */
export type NativeToolDefinitions = { [F in BuiltInWireFormat]: NativeToolShapes[DescriptorOf<F>["nativeTools"]] }

/** The native tool definition type of one wire format (a registered format's: any of the shapes). */
export type NativeToolDefinition<F extends WireFormat = WireFormat> = F extends BuiltInWireFormat
  ? NativeToolDefinitions[F]
  : NativeToolShapes[NativeToolShape]
