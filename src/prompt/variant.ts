import type { PromptContext } from "../context/prompt-context.js"
import type { ModelInfo } from "../models/types.js"
import type { ComponentEnv, SectionContent } from "./component.js"

/**
 * What a variant matches, declaratively. Every listed condition must hold. `models` patterns are
 * tested against the model id; `custom` is an escape hatch for anything the fields cannot say.
 */
export interface VariantMatch {
  providers?: string[]
  families?: string[]
  models?: RegExp[]
  audience?: PromptContext["audience"]
  /** Matches models that run locally. */
  local?: boolean
  /** Matches models whose context window is at most this. */
  maxContextWindow?: number
  /** Matches only when native tool calling is available. */
  nativeTools?: boolean
  custom?: (model: ModelInfo, context: PromptContext) => boolean
}

/** A change a variant makes to a shared component, without copying its text. */
export interface ComponentPatch {
  /** Template text added before the component's output (only when the component renders). */
  prepend?: string
  /** Template text added after the component's output (only when the component renders). */
  append?: string
  /** Replaces the component's render function. */
  render?: (context: PromptContext, env: ComponentEnv) => SectionContent
}

/** A prompt variant for a model family: data plus patches over the shared components. */
export interface Variant {
  id: string
  description: string
  /** Higher is tried first; ties broken by id. `generic` (the fallback) has the lowest. */
  priority: number
  /** Matches when any of the listed conditions sets holds; an empty list matches everything. */
  match: VariantMatch[]
  /** Default dialect; the context's `toolCalling` overrides it. `auto`: native when the model supports it. */
  toolCalling: "native" | "xml" | "auto"
  /** Component ids in output order. */
  components: readonly string[]
  /** Built-in tool ids this variant offers (before gates and the context's include/exclude). */
  tools: readonly string[]
  /** Whether tools of connected MCP servers are offered directly. */
  mcpTools: boolean
  /** Template values, the lowest layer of the template scope. */
  values?: Record<string, unknown>
  patches?: Record<string, ComponentPatch>
  /** Hard limit on the system prompt's size in o200k tokens (instruction files not counted), checked by the tests. */
  maxTokens?: number
}

/** Declares a variant. */
export function defineVariant(variant: Variant): Variant {
  return variant
}
