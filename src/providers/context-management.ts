/**
 * Provider-side context management as encoder options: Anthropic context editing (clearing old tool uses and
 * thinking) and server-side compaction, OpenAI Responses compaction. Validated here once; each encoder writes
 * its own wire form (anthropic/context-edits.ts, openai-responses/encode.ts).
 */
import { PromptlineError } from "../errors.js"

/** Anthropic `clear_tool_uses_20250919`: clear old tool results (and optionally their inputs) past a trigger. */
export interface ClearToolUsesOptions {
  /** Input tokens that start clearing (Anthropic's default 100,000). */
  trigger?: number
  /** Tool uses kept, most recent first (default 3). */
  keep?: number
  /** Clear only when at least this many input tokens go (worth breaking the cache for). */
  clearAtLeast?: number
  /** Tools whose uses are never cleared. */
  excludeTools?: readonly string[]
  /** Clear the calls' inputs too: all (true) or those of the named tools. */
  clearToolInputs?: boolean | readonly string[]
}

/** Anthropic `clear_thinking_20251015`: keep thinking of the last N assistant turns, or all of it. */
export interface ClearThinkingOptions {
  keep?: number | "all"
}

/** Server-side compaction: Anthropic `compact_20260112`, OpenAI Responses `compaction`. */
export interface ProviderCompactionOptions {
  /** Input tokens at which the server compacts (Anthropic: at least 50,000, default 150,000; OpenAI `compact_threshold`). */
  trigger?: number
  /** Anthropic only: replaces the server's summarizing prompt. */
  instructions?: string
  /** Anthropic only: stop after the compaction block (stop reason `compaction`). */
  pauseAfterCompaction?: boolean
}

/** What to ask the provider to manage; `true` takes the provider's defaults. */
export interface ContextManagementOptions {
  clearToolUses?: ClearToolUsesOptions | true
  clearThinking?: ClearThinkingOptions | true
  compaction?: ProviderCompactionOptions | true
}

/** Anthropic's smallest compaction trigger. */
export const ANTHROPIC_MIN_COMPACTION_TRIGGER = 50_000

/** A context-management option the provider would refuse; `option` names it (`contextManagement.compaction.trigger`). */
export class ContextManagementError extends PromptlineError<"context-management-invalid"> {
  readonly option: string
  constructor(option: string, message: string) {
    super("context-management-invalid", `${option}: ${message}`)
    this.option = option
  }
}

const PATH = "contextManagement"

function positiveInteger(value: unknown, option: string, min = 1): void {
  if (value === undefined) return
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min)
    throw new ContextManagementError(option, `must be a whole number of at least ${min} (got ${JSON.stringify(value)})`)
}

function names(value: unknown, option: string): void {
  if (value === undefined) return
  if (!Array.isArray(value) || value.some((n) => typeof n !== "string" || n === ""))
    throw new ContextManagementError(option, "must be a list of tool names")
}

/** Checks the options; throws a ContextManagementError naming the first bad one. `format` adds its own limits. */
export function validateContextManagement(options: ContextManagementOptions, format?: string): void {
  if (typeof options !== "object" || options === null)
    throw new ContextManagementError(PATH, "must be an object with clearToolUses, clearThinking or compaction")
  for (const key of Object.keys(options))
    if (!["clearToolUses", "clearThinking", "compaction"].includes(key))
      throw new ContextManagementError(`${PATH}.${key}`, "is not a context-management option")
  const tools = options.clearToolUses
  if (tools !== undefined && tools !== true) {
    const at = `${PATH}.clearToolUses`
    if (typeof tools !== "object" || tools === null) throw new ContextManagementError(at, "must be true or an object")
    positiveInteger(tools.trigger, `${at}.trigger`)
    positiveInteger(tools.keep, `${at}.keep`, 0)
    positiveInteger(tools.clearAtLeast, `${at}.clearAtLeast`)
    names(tools.excludeTools, `${at}.excludeTools`)
    if (tools.clearToolInputs !== undefined && typeof tools.clearToolInputs !== "boolean")
      names(tools.clearToolInputs, `${at}.clearToolInputs`)
  }
  const thinking = options.clearThinking
  if (thinking !== undefined && thinking !== true) {
    const at = `${PATH}.clearThinking`
    if (typeof thinking !== "object" || thinking === null)
      throw new ContextManagementError(at, "must be true or an object")
    if (thinking.keep !== "all") positiveInteger(thinking.keep, `${at}.keep`)
  }
  const compaction = options.compaction
  if (compaction !== undefined && compaction !== true) {
    const at = `${PATH}.compaction`
    if (typeof compaction !== "object" || compaction === null)
      throw new ContextManagementError(at, "must be true or an object")
    positiveInteger(compaction.trigger, `${at}.trigger`, format === "anthropic" ? ANTHROPIC_MIN_COMPACTION_TRIGGER : 1)
    if (
      compaction.instructions !== undefined &&
      (typeof compaction.instructions !== "string" || !compaction.instructions.trim())
    )
      throw new ContextManagementError(`${at}.instructions`, "must be a text that is not blank")
    if (compaction.pauseAfterCompaction !== undefined && typeof compaction.pauseAfterCompaction !== "boolean")
      throw new ContextManagementError(`${at}.pauseAfterCompaction`, "must be true or false")
  }
}

/** The object form of an option given as `true` (or absent). */
export function settingsOf<T extends object>(value: T | true | undefined): T | undefined {
  return value === true ? ({} as T) : value
}
