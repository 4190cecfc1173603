import type { PromptContext } from "../../context/prompt-context.js"
import { type Diagnostic, diagnostic } from "../../diagnostics.js"
import type { ModelInfo } from "../../models/types.js"
import type { EnabledTool, ToolSpec } from "../spec.js"
import { callToolTool, searchToolsTool } from "./fixed-tools.js"

/** The tool-search settings of a context (`context.tools.search`). */
export type ToolSearchSettings = NonNullable<NonNullable<PromptContext["tools"]>["search"]>

/** The share of the model's input window the tool definitions may take before deferrable tools are left out. */
export const DEFAULT_TOOL_SEARCH_THRESHOLD = 0.1

/** Characters per token of the estimate that decides the threshold (JSON definitions, o200k-like). */
const CHARS_PER_TOKEN = 4

/** A tool of the build with the spec it came from. */
export interface PlannedTool {
  spec: ToolSpec
  tool: EnabledTool
}

/** What tool search decided for a build. */
export interface ToolSearchPlan {
  /** The tool list sent: the loaded tools, then the search and call tools when tool search is on. */
  tools: EnabledTool[]
  /** The tools left out of the list, found and called through the search tools; empty when off. */
  deferred: EnabledTool[]
  /** Estimated tokens of every enabled tool's definition, before deferring. */
  definitionTokens: number
  /** The threshold in tokens. */
  thresholdTokens: number
  diagnostics: Diagnostic[]
}

/** Estimated tokens of a tool's definition (name, description, parameter schema as JSON). */
export function estimateDefinitionTokens(tool: Pick<EnabledTool, "name" | "description" | "parameters">): number {
  const json = JSON.stringify({ name: tool.name, description: tool.description, parameters: tool.parameters })
  return Math.ceil(json.length / CHARS_PER_TOKEN)
}

/** The tokens the model's prompt may take: the window, or the input limit when lower. */
function inputBudget(model: Pick<ModelInfo, "contextWindow" | "maxInput">): number {
  return Math.min(model.contextWindow, model.maxInput ?? Number.POSITIVE_INFINITY)
}

/** Whether a tool may be deferred: the context's pin and defer lists, then the spec, then "MCP tools are". */
export function isDeferrable(spec: ToolSpec, settings: ToolSearchSettings | undefined): boolean {
  if (settings?.pin?.includes(spec.id)) return false
  if (settings?.defer?.includes(spec.id)) return true
  return spec.defer ?? spec.kind === "mcp"
}

/**
 * Decides which tools leave the tool list. Tool search is on when the mode is `always`, or (`auto`) when the
 * estimated definitions of all enabled tools exceed the threshold; then every deferrable tool is left out and
 * the search and call tools are added at the end. The result depends only on the tools, the settings and the
 * model, so it is the same on every turn and the cached prefix does not move.
 */
export function planToolSearch(
  planned: readonly PlannedTool[],
  settings: ToolSearchSettings | undefined,
  model: Pick<ModelInfo, "contextWindow" | "maxInput">,
): ToolSearchPlan {
  const all = planned.map((p) => p.tool)
  const definitionTokens = all.reduce((sum, t) => sum + estimateDefinitionTokens(t), 0)
  const threshold = settings?.threshold ?? DEFAULT_TOOL_SEARCH_THRESHOLD
  const thresholdTokens = threshold < 1 ? Math.floor(inputBudget(model) * threshold) : Math.floor(threshold)
  const mode = settings?.mode ?? "auto"
  const off: ToolSearchPlan = { tools: all, deferred: [], definitionTokens, thresholdTokens, diagnostics: [] }
  if (mode === "never" || (mode === "auto" && definitionTokens <= thresholdTokens)) return off
  const deferred = planned.filter((p) => isDeferrable(p.spec, settings)).map((p) => p.tool)
  if (deferred.length === 0) return off
  const loaded = planned.filter((p) => !isDeferrable(p.spec, settings)).map((p) => p.tool)
  const taken = new Set(loaded.map((t) => t.name))
  const fixed = [searchToolsTool(deferred), callToolTool()]
  const clash = fixed.find((t) => taken.has(t.name))
  if (clash) {
    return {
      ...off,
      diagnostics: [
        diagnostic(
          "error",
          "tool-search-name-taken",
          `tool search is off: a loaded tool is already named "${clash.name}"; rename it to turn tool search on`,
        ),
      ],
    }
  }
  const why =
    mode === "always"
      ? "tool search is always on"
      : `the tool definitions (about ${definitionTokens} tokens) exceed the threshold of ${thresholdTokens}`
  return {
    tools: [...loaded, ...fixed],
    deferred,
    definitionTokens,
    thresholdTokens,
    diagnostics: [
      diagnostic(
        "info",
        "tools-deferred",
        `${deferred.length} tool${deferred.length === 1 ? " is" : "s are"} left out of the tool list and found with the search tool: ${why}`,
      ),
    ],
  }
}
