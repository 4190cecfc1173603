/**
 * The set of wire formats: the built-in descriptors (one per folder under providers/) and the formats registered at
 * run time (`registerWireFormat` in formats.ts, which checks the module and hands its descriptor to
 * `registerDescriptor` below). Every per-format table is read off this set when it is asked, so a registered format
 * is in every one of them. Adding a built-in format is its folder and one line below (the compiler then demands its
 * module in formats.ts).
 *
 * The registry is the one piece of process-wide state in the wire layer, on purpose (docs/decisions.md, wire
 * formats): format names travel as plain strings in configs, traces, recordings, model rows and command lines, and
 * every lookup from a name goes through `descriptorOf` or `formatModule`. It only grows, by at most
 * `MAX_REGISTERED_FORMATS`, and a name once known never changes meaning.
 */
import { PromptlineError } from "../errors.js"
import { anthropicDescriptor } from "./anthropic/descriptor.js"
import { deepseekDescriptor } from "./deepseek/descriptor.js"
import { matchPath, type PathRule, type WireFormatDescriptor } from "./descriptor.js"
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

/** The names of the built-in wire formats (the keys of the tables typed per format). */
export type BuiltInWireFormat = (typeof WIRE_FORMAT_DESCRIPTORS)[number]["format"]

/**
 * The name of a wire format: a built-in one, or one registered at run time. Any string type-checks; a name no
 * descriptor has is refused where it comes in (the config, the command line) and by `descriptorOf`.
 */
export type WireFormat = BuiltInWireFormat | (string & Record<never, never>)

/** The descriptor of one built-in format, typed as written. */
export type DescriptorOf<F extends BuiltInWireFormat> = Extract<(typeof WIRE_FORMAT_DESCRIPTORS)[number], { format: F }>

/** The built-in wire formats, in documentation order (`wireFormats()` adds the registered ones). */
export const WIRE_FORMATS: readonly BuiltInWireFormat[] = Object.freeze(WIRE_FORMAT_DESCRIPTORS.map((d) => d.format))

/** How many formats a process may register besides the built-in ones. */
export const MAX_REGISTERED_FORMATS = 16

/** A name the conversation readers use for promptline's own messages, so no format may take it. */
const RESERVED_NAMES = new Set(["internal"])

/** The whole set, built-in first and then in registration order; replaced (never changed) by each registration. */
let known: readonly WireFormatDescriptor[] = WIRE_FORMAT_DESCRIPTORS
let names: readonly WireFormat[] = WIRE_FORMATS
const byName = new Map<string, WireFormatDescriptor>(WIRE_FORMAT_DESCRIPTORS.map((d) => [d.format, d]))

/** Every wire format's descriptor: the built-in ones, then the registered ones in registration order. */
export function wireFormatDescriptors(): readonly WireFormatDescriptor[] {
  return known
}

/** Every wire format's name: the built-in ones, then the registered ones. */
export function wireFormats(): readonly WireFormat[] {
  return names
}

/** Whether a name is a wire format the set holds (built-in or registered). */
export function isWireFormat(name: string): boolean {
  return byName.has(name)
}

/** The descriptor of a format (or the descriptor itself when one is given); a name the set lacks is a typed error. */
export function descriptorOf<F extends BuiltInWireFormat>(format: F): DescriptorOf<F>
export function descriptorOf(format: WireFormat | WireFormatDescriptor): WireFormatDescriptor
export function descriptorOf(format: WireFormat | WireFormatDescriptor): WireFormatDescriptor {
  if (typeof format !== "string") return format
  const found = byName.get(format)
  if (!found) throw unknownWireFormat(format)
  return found
}

/** The typed error for a format name no descriptor has, listing the names there are. */
export function unknownWireFormat(format: string): PromptlineError {
  return new PromptlineError(
    "wire-format-unknown",
    `unknown wire format "${format}" (the wire formats are: ${names.join(", ")})`,
  )
}

/** A table with one entry per built-in format, read off each descriptor. */
export function perFormat<T>(read: (descriptor: WireFormatDescriptor) => T): {
  readonly [F in BuiltInWireFormat]: T
} {
  return Object.freeze(Object.fromEntries(WIRE_FORMAT_DESCRIPTORS.map((d) => [d.format, read(d)]))) as {
    readonly [F in BuiltInWireFormat]: T
  }
}

/**
 * Why a descriptor cannot join `set` (a typed error), or undefined when it can: it needs a free, well-formed name, a
 * shape it can speak, defaults no other format claims, and client API paths and marks no other format serves.
 */
export function descriptorProblem(
  descriptor: WireFormatDescriptor,
  set: readonly WireFormatDescriptor[] = known,
): PromptlineError | undefined {
  const invalid = (message: string) => new PromptlineError("wire-format-invalid", message)
  const conflict = (message: string) => new PromptlineError("wire-format-conflict", message)
  const name = descriptor.format
  if (typeof name !== "string" || !/^[a-z][a-z0-9-]*$/.test(name))
    return invalid(
      `a wire format's name is lowercase letters, digits and dashes, starting with a letter (got ${JSON.stringify(name)})`,
    )
  const taken = set.some((d) => d.format === name)
  if (taken || RESERVED_NAMES.has(name))
    return conflict(`the wire format "${name}" is already ${taken ? "in the set" : "a reserved name"}`)
  if (set.length - WIRE_FORMAT_DESCRIPTORS.length >= MAX_REGISTERED_FORMATS)
    return invalid(`cannot register "${name}": a process registers at most ${MAX_REGISTERED_FORMATS} wire formats`)
  if (descriptor.endpoint.compatible)
    return invalid(
      `the wire format "${name}" says OpenAI-compatible servers speak it: only the built-in OpenAI formats may; a registered format names its providers in defaultFor.providers`,
    )
  const spoken = set.find((d) => d.format === descriptor.speaks)
  if (descriptor.speaks !== name && spoken?.speaks !== descriptor.speaks)
    return invalid(
      `the wire format "${name}" speaks "${descriptor.speaks}", which is neither itself nor a format with a shape of its own`,
    )
  for (const other of set) {
    const clash = defaultClash(descriptor, other) ?? apiClash(descriptor, other)
    if (clash) return conflict(`the wire format "${name}" ${clash} (the format "${other.format}" already does)`)
  }
  return undefined
}

/**
 * Adds a descriptor to the set once `descriptorProblem` finds nothing against it; otherwise throws that typed error
 * and changes nothing. Called only by `registerWireFormat` (formats.ts), which registers the descriptor's module with
 * it.
 */
export function registerDescriptor(descriptor: WireFormatDescriptor): void {
  const problem = descriptorProblem(descriptor)
  if (problem) throw problem
  known = Object.freeze([...known, descriptor])
  names = Object.freeze(known.map((d) => d.format))
  byName.set(descriptor.format, descriptor)
}

/** Why two descriptors cannot both be in the set by their defaults: a provider or a family both claim. */
function defaultClash(a: WireFormatDescriptor, b: WireFormatDescriptor): string | undefined {
  const provider = a.defaultFor.providers.find((p) => b.defaultFor.providers.includes(p))
  if (provider !== undefined) return `is the default format of the provider "${provider}"`
  const family = (a.defaultFor.families ?? []).find((f) => (b.defaultFor.families ?? []).includes(f))
  if (family !== undefined) return `is the default format of the family "${family}"`
  return undefined
}

/** Why two descriptors' client APIs cannot be told apart: a path both serve, or a mark both use. */
function apiClash(a: WireFormatDescriptor, b: WireFormatDescriptor): string | undefined {
  if (!a.api || !b.api) return undefined
  for (const [probe, reader] of [...probes(a).map((p) => [p, b] as const), ...probes(b).map((p) => [p, a] as const)]) {
    const [path, query = ""] = probe.split("?")
    const params = new URLSearchParams(query)
    const rules: (PathRule | undefined)[] = [reader.api?.generation, reader.api?.counting]
    if (rules.some((rule) => rule !== undefined && matchPath(rule, path!, params) !== undefined))
      return `serves the client API path ${path}`
  }
  if (a.api.marks?.fallback && b.api.marks?.fallback) return "is the client API assumed when nothing else says"
  const header = a.api.marks?.header
  if (header !== undefined && header.toLowerCase() === b.api.marks?.header?.toLowerCase())
    return `marks its clients' requests by the header ${header}`
  return undefined
}

/**
 * Paths a descriptor's client API serves, to try on another's path rules: its exact generation and counting paths,
 * and its provider paths with a model filled in when its own rules read them (how a rule written as a function,
 * such as Gemini's, is sampled).
 */
function probes(d: WireFormatDescriptor): string[] {
  const rules = [d.api?.generation, d.api?.counting].filter((r): r is PathRule => r !== undefined)
  const exact = rules.flatMap((rule) => (typeof rule === "function" ? [] : [...rule]))
  const provider = [d.endpoint.path, d.endpoint.unaryPath]
    .filter((p): p is string => p !== undefined)
    .map((p) => p.replace("{model}", "probe-model"))
    .filter((p) => {
      const [path, query = ""] = p.split("?")
      return rules.some((rule) => matchPath(rule, path!, new URLSearchParams(query)) !== undefined)
    })
  return [...exact, ...provider]
}
