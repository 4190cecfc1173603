/**
 * The one table of wire formats: each entry is the module its folder exports. The dispatchers
 * (encode.ts, decode.ts) and every list of formats look formats up here; adding a format is one
 * folder under providers/ and one line below (plus its name in `WireFormat`, which the compiler then
 * demands here).
 */
import type { WireFormat } from "../models/types.js"
import type { NativeToolDefinition } from "../tools/native-types.js"
import { anthropicFormat } from "./anthropic/index.js"
import { deepseekFormat } from "./deepseek/index.js"
import { geminiFormat } from "./gemini/index.js"
import { openAIChatFormat } from "./openai-chat/index.js"
import { openAIResponsesFormat } from "./openai-responses/index.js"
import type { BodyOf, WireFormatModule } from "./types.js"

/** The module of each wire format. */
export const WIRE_FORMAT_MODULES = {
  anthropic: anthropicFormat,
  "openai-chat": openAIChatFormat,
  "openai-responses": openAIResponsesFormat,
  gemini: geminiFormat,
  deepseek: deepseekFormat,
} as const satisfies {
  readonly [F in WireFormat]: WireFormatModule<unknown, WireFormat, NativeToolDefinition<F>> & { readonly format: F }
}

/** The request body type of each wire format. */
export type RequestBodies = { [F in WireFormat]: BodyOf<(typeof WIRE_FORMAT_MODULES)[F]> }

/** The formats whose wire shape is their own (the others extend one of these): what a fake provider must speak. */
export type SpokenFormat = (typeof WIRE_FORMAT_MODULES)[WireFormat]["speaks"]

/** The fields every format module must have; a test checks each module against it. */
export const WIRE_FORMAT_MODULE_FIELDS = [
  "format",
  "speaks",
  "encode",
  "createDecoder",
  "responseEvents",
  "decodeOptions",
  "nativeTools",
  "overhead",
  "decodeRequest",
  "createStreamEncoder",
  "encodeResponse",
  "encodeError",
  "descriptor",
] as const satisfies readonly (keyof WireFormatModule)[]

/** The module of a format, or the module itself when one is given (a format not in the table, e.g. in a test). */
export function formatModule(format: WireFormat | WireFormatModule): WireFormatModule {
  return typeof format === "string" ? WIRE_FORMAT_MODULES[format] : format
}

/** The names of the fields a module lacks (empty when complete). */
export function missingModuleFields(module: Partial<Record<keyof WireFormatModule, unknown>>): string[] {
  return WIRE_FORMAT_MODULE_FIELDS.filter((field) => module[field] === undefined)
}
