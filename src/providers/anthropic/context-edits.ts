/**
 * Anthropic context management on the wire: the `context_management.edits` of a request (clear_tool_uses_20250919,
 * clear_thinking_20251015, compact_20260112) with their beta headers, the `compaction` content block, and the
 * `context_management.applied_edits` of an answer. Both directions: the encoder writes them, the request decoder
 * and the stream decoder read them.
 */
import type { CompactionBlock } from "../../history/message.js"
import {
  type ClearThinkingOptions,
  type ClearToolUsesOptions,
  type ContextManagementOptions,
  type ProviderCompactionOptions,
  settingsOf,
  validateContextManagement,
} from "../context-management.js"
import type { AppliedContextEdit } from "../stream.js"
import { num, obj, str } from "../stream.js"
import type { CompactionBlockParam, ContextManagementEdit } from "./wire-types.js"

/** The beta that turns on context editing (clearing tool uses and thinking). */
export const CONTEXT_EDITING_BETA = "context-management-2025-06-27"
/** The beta that turns on server-side compaction. */
export const COMPACTION_BETA = "compact-2026-01-12"

/** The edits for the options, thinking first (Anthropic wants it ahead of other edits), and the betas they need. */
export function anthropicEdits(options: ContextManagementOptions): { edits: ContextManagementEdit[]; betas: string[] } {
  validateContextManagement(options, "anthropic")
  const edits: ContextManagementEdit[] = []
  const betas: string[] = []
  const thinking = settingsOf<ClearThinkingOptions>(options.clearThinking)
  if (thinking) {
    const edit: ContextManagementEdit = { type: "clear_thinking_20251015" }
    if (thinking.keep !== undefined)
      edit.keep = thinking.keep === "all" ? "all" : { type: "thinking_turns", value: thinking.keep }
    edits.push(edit)
  }
  const tools = settingsOf<ClearToolUsesOptions>(options.clearToolUses)
  if (tools) {
    const edit: Extract<ContextManagementEdit, { type: "clear_tool_uses_20250919" }> = {
      type: "clear_tool_uses_20250919",
    }
    if (tools.trigger !== undefined) edit.trigger = { type: "input_tokens", value: tools.trigger }
    if (tools.keep !== undefined) edit.keep = { type: "tool_uses", value: tools.keep }
    if (tools.clearAtLeast !== undefined) edit.clear_at_least = { type: "input_tokens", value: tools.clearAtLeast }
    if (tools.excludeTools !== undefined) edit.exclude_tools = [...tools.excludeTools]
    if (tools.clearToolInputs !== undefined)
      edit.clear_tool_inputs =
        typeof tools.clearToolInputs === "boolean" ? tools.clearToolInputs : [...tools.clearToolInputs]
    edits.push(edit)
  }
  if (thinking || tools) betas.push(CONTEXT_EDITING_BETA)
  const compaction = settingsOf<ProviderCompactionOptions>(options.compaction)
  if (compaction) {
    const edit: Extract<ContextManagementEdit, { type: "compact_20260112" }> = { type: "compact_20260112" }
    if (compaction.trigger !== undefined) edit.trigger = { type: "input_tokens", value: compaction.trigger }
    if (compaction.instructions !== undefined) edit.instructions = compaction.instructions
    if (compaction.pauseAfterCompaction !== undefined) edit.pause_after_compaction = compaction.pauseAfterCompaction
    edits.push(edit)
    betas.push(COMPACTION_BETA)
  }
  return { edits, betas }
}

/** A `{ type, value }` count of the given type, or undefined when it is something else. */
function countOf(value: unknown, type: string): number | undefined {
  const o = obj(value)
  return o?.type === type && typeof o.value === "number" ? o.value : undefined
}

/**
 * A request's `context_management` read back as options; what has no place in them (an unknown edit, a
 * tool-uses trigger) is reported through `unmodeled` as JSON paths.
 */
export function fromAnthropicEdits(value: unknown, unmodeled: string[]): ContextManagementOptions | undefined {
  const config = obj(value)
  if (!config || !Array.isArray(config.edits)) {
    if (value !== undefined && value !== null) unmodeled.push("context_management")
    return undefined
  }
  const out: ContextManagementOptions = {}
  config.edits.forEach((entry, i) => {
    const at = `context_management.edits[${i}]`
    const edit = obj(entry)
    const known = new Set(["type"])
    if (edit?.type === "clear_tool_uses_20250919") {
      const o: ClearToolUsesOptions = {}
      const trigger = countOf(edit.trigger, "input_tokens")
      if (trigger !== undefined) {
        o.trigger = trigger
        known.add("trigger")
      }
      const keep = countOf(edit.keep, "tool_uses")
      if (keep !== undefined) {
        o.keep = keep
        known.add("keep")
      }
      const least = countOf(edit.clear_at_least, "input_tokens")
      if (least !== undefined) {
        o.clearAtLeast = least
        known.add("clear_at_least")
      }
      if (Array.isArray(edit.exclude_tools)) {
        o.excludeTools = edit.exclude_tools.map(String)
        known.add("exclude_tools")
      }
      const inputs = edit.clear_tool_inputs
      if (typeof inputs === "boolean" || Array.isArray(inputs)) {
        o.clearToolInputs = typeof inputs === "boolean" ? inputs : inputs.map(String)
        known.add("clear_tool_inputs")
      }
      out.clearToolUses = Object.keys(o).length > 0 ? o : true
    } else if (edit?.type === "clear_thinking_20251015") {
      const keep = edit.keep === "all" ? "all" : countOf(edit.keep, "thinking_turns")
      if (keep !== undefined) known.add("keep")
      out.clearThinking = keep !== undefined ? { keep } : true
    } else if (edit?.type === "compact_20260112") {
      const o: ProviderCompactionOptions = {}
      const trigger = countOf(edit.trigger, "input_tokens")
      if (trigger !== undefined) {
        o.trigger = trigger
        known.add("trigger")
      }
      if (typeof edit.instructions === "string") {
        o.instructions = edit.instructions
        known.add("instructions")
      }
      if (typeof edit.pause_after_compaction === "boolean") {
        o.pauseAfterCompaction = edit.pause_after_compaction
        known.add("pause_after_compaction")
      }
      out.compaction = Object.keys(o).length > 0 ? o : true
    } else {
      unmodeled.push(at)
      return
    }
    for (const key of Object.keys(edit)) if (!known.has(key) && edit[key] != null) unmodeled.push(`${at}.${key}`)
  })
  for (const key of Object.keys(config)) if (key !== "edits") unmodeled.push(`context_management.${key}`)
  return Object.keys(out).length > 0 ? out : undefined
}

/** The opaque fields of a compaction block: everything but its type, its summary and a cache marker. */
const OPEN_FIELDS = new Set(["type", "content", "cache_control"])

/** A `compaction` content block (request or answer) as an internal block. */
export function compactionFromWire(block: Record<string, unknown>): CompactionBlock {
  const out: CompactionBlock = { type: "compaction", format: "anthropic" }
  const summary = str(block.content)
  if (summary !== undefined) out.summary = summary
  const opaque: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(block)) if (!OPEN_FIELDS.has(key) && value != null) opaque[key] = value
  if (Object.keys(opaque).length > 0) out.payload = JSON.stringify(opaque)
  return out
}

/** An internal compaction block as Anthropic's `compaction` block: the summary and the opaque fields verbatim. */
export function compactionToWire(block: CompactionBlock): CompactionBlockParam {
  let opaque: Record<string, unknown> = {}
  if (block.payload) {
    try {
      const parsed = obj(JSON.parse(block.payload))
      if (parsed) opaque = parsed
    } catch {
      // A payload that is not our JSON (made by hand) travels as the encrypted content.
      opaque = { encrypted_content: block.payload }
    }
  }
  return { type: "compaction", content: block.summary ?? null, ...opaque }
}

/** The `context_management.applied_edits` of an answer as applied edits. */
export function appliedEdits(value: unknown): AppliedContextEdit[] | undefined {
  const list = obj(value)?.applied_edits
  if (!Array.isArray(list)) return undefined
  return list.flatMap((entry) => {
    const e = obj(entry)
    const type = str(e?.type)
    if (!e || !type) return []
    const out: AppliedContextEdit = { type }
    if (typeof e.cleared_input_tokens === "number") out.clearedInputTokens = num(e.cleared_input_tokens)
    if (typeof e.cleared_tool_uses === "number") out.clearedToolUses = num(e.cleared_tool_uses)
    if (typeof e.cleared_thinking_turns === "number") out.clearedThinkingTurns = num(e.cleared_thinking_turns)
    return [out]
  })
}

/** Applied edits in Anthropic's `context_management` answer shape. */
export function appliedEditsToWire(edits: readonly AppliedContextEdit[]): { applied_edits: Record<string, unknown>[] } {
  return {
    applied_edits: edits.map((e) => ({
      type: e.type,
      ...(e.clearedInputTokens !== undefined ? { cleared_input_tokens: e.clearedInputTokens } : {}),
      ...(e.clearedToolUses !== undefined ? { cleared_tool_uses: e.clearedToolUses } : {}),
      ...(e.clearedThinkingTurns !== undefined ? { cleared_thinking_turns: e.clearedThinkingTurns } : {}),
    })),
  }
}
