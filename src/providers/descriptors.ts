/**
 * The set of built-in wire formats: one descriptor per folder under providers/. Every per-format table is derived
 * from this list (and `WireFormat` is its names); adding a format is its folder and one line below (the compiler
 * then demands its module in formats.ts).
 */
import { anthropicDescriptor } from "./anthropic/descriptor.js"
import { deepseekDescriptor } from "./deepseek/descriptor.js"
import type { WireFormatDescriptor } from "./descriptor.js"
import { geminiDescriptor } from "./gemini/descriptor.js"
import { openAIChatDescriptor } from "./openai-chat/descriptor.js"
import { openAIResponsesDescriptor } from "./openai-responses/descriptor.js"

/** The built-in descriptors, in documentation order. */
export const WIRE_FORMAT_DESCRIPTORS = Object.freeze([
  anthropicDescriptor,
  openAIChatDescriptor,
  openAIResponsesDescriptor,
  geminiDescriptor,
  deepseekDescriptor,
] as const)

/** The request/stream formats promptline speaks. */
export type WireFormat = (typeof WIRE_FORMAT_DESCRIPTORS)[number]["format"]

/** The descriptor of one built-in format, typed as written. */
export type DescriptorOf<F extends WireFormat> = Extract<(typeof WIRE_FORMAT_DESCRIPTORS)[number], { format: F }>

/** All wire formats, in documentation order. */
export const WIRE_FORMATS: readonly WireFormat[] = Object.freeze(WIRE_FORMAT_DESCRIPTORS.map((d) => d.format))

const BY_NAME: ReadonlyMap<string, WireFormatDescriptor> = new Map(WIRE_FORMAT_DESCRIPTORS.map((d) => [d.format, d]))

/** The descriptor of a built-in format (or the descriptor itself, for a format outside the set, e.g. in a test). */
export function descriptorOf<F extends WireFormat>(format: F): DescriptorOf<F>
export function descriptorOf(format: WireFormat | WireFormatDescriptor): WireFormatDescriptor
export function descriptorOf(format: WireFormat | WireFormatDescriptor): WireFormatDescriptor {
  return typeof format === "string" ? BY_NAME.get(format)! : format
}

/** A table with one entry per built-in format, read off each descriptor. */
export function perFormat<T>(read: (descriptor: WireFormatDescriptor) => T): { readonly [F in WireFormat]: T } {
  return Object.freeze(Object.fromEntries(WIRE_FORMAT_DESCRIPTORS.map((d) => [d.format, read(d)]))) as {
    readonly [F in WireFormat]: T
  }
}
