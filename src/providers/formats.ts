/**
 * The modules of the wire formats: each built-in one is the module its folder exports, listed once below; a format
 * registered at run time (`registerWireFormat`) joins them with its descriptor. The dispatchers (encode.ts,
 * decode.ts), the gateway, the replay server and the cache explainer look a format's module up here by name.
 */
import { PromptlineError } from "../errors.js"
import type { NativeToolDefinition } from "../tools/native-types.js"
import { anthropicFormat } from "./anthropic/index.js"
import { deepseekFormat } from "./deepseek/index.js"
import { type BuiltInWireFormat, registerDescriptor, unknownWireFormat, type WireFormat } from "./descriptors.js"
import { geminiFormat } from "./gemini/index.js"
import { openAIChatFormat } from "./openai-chat/index.js"
import { openAIResponsesFormat } from "./openai-responses/index.js"
import type { BodyOf, WireFormatModule } from "./types.js"

/** The module of each built-in wire format. */
export const WIRE_FORMAT_MODULES = {
  anthropic: anthropicFormat,
  "openai-chat": openAIChatFormat,
  "openai-responses": openAIResponsesFormat,
  gemini: geminiFormat,
  deepseek: deepseekFormat,
} as const satisfies {
  readonly [F in BuiltInWireFormat]: WireFormatModule<unknown, WireFormat, NativeToolDefinition<F>> & {
    readonly format: F
  }
}

/** The request body type of each built-in wire format. */
export type RequestBodies = { [F in BuiltInWireFormat]: BodyOf<(typeof WIRE_FORMAT_MODULES)[F]> }

/** The wire shapes of the built-in formats (the others extend one of these): what the replay server's handlers speak. */
export type BuiltInShape = (typeof WIRE_FORMAT_MODULES)[BuiltInWireFormat]["speaks"]

/**
 * A format whose wire shape is its own, as a client API or a fake provider speaks it: a built-in shape, or a
 * registered format that speaks itself.
 */
export type SpokenFormat = BuiltInShape | (string & Record<never, never>)

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
  "wireParts",
] as const satisfies readonly (keyof WireFormatModule)[]

/** Every format's module by name: the built-in ones, and the registered ones as they come. */
const modules = new Map<string, WireFormatModule>(Object.entries(WIRE_FORMAT_MODULES))

/** The module of a format (built-in or registered), or the module itself when one is given; an unknown name is a typed error. */
export function formatModule(format: WireFormat | WireFormatModule): WireFormatModule {
  if (typeof format !== "string") return format
  const found = modules.get(format)
  if (!found) throw unknownWireFormat(format)
  return found
}

/** The names of the fields a module lacks (empty when complete). */
export function missingModuleFields(module: Partial<Record<keyof WireFormatModule, unknown>>): string[] {
  return WIRE_FORMAT_MODULE_FIELDS.filter((field) => module[field] === undefined)
}

/**
 * Adds a wire format to the set, in one call: its module, with the descriptor every per-format table reads. From
 * then on the format is served by the gateway and the replay server, counted, explained by the cache explainer,
 * accepted by the config and the command line, like a built-in one. Throws a typed error (`wire-format-invalid`,
 * `wire-format-conflict`) and registers nothing when the module is incomplete, disagrees with its descriptor, or
 * clashes with a format already in the set (docs/architecture.md, "How to add a wire format").
 */
export function registerWireFormat(module: WireFormatModule): void {
  const invalid = (message: string) => new PromptlineError("wire-format-invalid", message)
  const missing = missingModuleFields(module)
  const name = String(module.format)
  if (missing.length > 0) throw invalid(`the wire format module "${name}" lacks ${missing.join(", ")}`)
  const { descriptor } = module
  if (descriptor.format !== module.format || descriptor.speaks !== module.speaks)
    throw invalid(
      `the wire format module "${name}" (speaks "${module.speaks}") and its descriptor ("${descriptor.format}", speaks "${descriptor.speaks}") disagree`,
    )
  if (JSON.stringify(module.overhead) !== JSON.stringify(descriptor.overhead))
    throw invalid(`the wire format module "${name}" has overheads other than its descriptor's`)
  registerDescriptor(descriptor)
  modules.set(name, module)
}
