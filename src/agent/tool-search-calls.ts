import type { ToolUseBlock } from "../history/message.js"
import type { DeferredTools } from "../tools/search/deferred-tools.js"
import { SEARCH_TOOLS_NAME } from "../tools/search/fixed-tools.js"
import { renderToolMatches } from "../tools/search/render.js"
import type { EnabledTool } from "../tools/spec.js"
import type { ToolOutcome } from "./executors/index.js"
import { failure, oneLine, success } from "./executors/outcome.js"

/** What a call comes down to: a tool to run with its input, or an outcome known without running one. */
export type ResolvedCall = { tool: EnabledTool; input: unknown } | { outcome: ToolOutcome }

function record(input: unknown): Record<string, unknown> {
  if (typeof input === "object" && input !== null && !Array.isArray(input)) return input as Record<string, unknown>
  return {}
}

/** The search tool: ranks the deferred tools for the query and returns the matches with their schemas. */
function searchOutcome(input: unknown, deferred: DeferredTools | undefined): ToolOutcome {
  const args = record(input)
  const query = typeof args.query === "string" ? args.query.trim() : ""
  if (!query)
    return failure(
      `Invalid arguments for ${SEARCH_TOOLS_NAME}: missing required parameter 'query'.`,
      `${SEARCH_TOOLS_NAME}: no query`,
    )
  const raw = typeof args.limit === "string" ? Number(args.limit.trim()) : args.limit
  const limit = typeof raw === "number" && Number.isFinite(raw) ? raw : undefined
  const matches = deferred?.search(query, limit) ?? []
  return success(
    renderToolMatches(query, matches, deferred?.tools.length ?? 0),
    `search tools "${oneLine(query, 40)}": ${matches.length} found`,
    { details: { matches: matches.map((m) => m.tool.name) } },
  )
}

/** A deferred tool with checked arguments, or the reason it cannot be called. */
function deferredCall(tool: EnabledTool, input: unknown, deferred: DeferredTools): ResolvedCall {
  const checked = deferred.check(tool, input)
  if (!checked.ok) return { outcome: failure(checked.message, `${tool.name}: invalid arguments`) }
  return { tool, input: checked.value }
}

/**
 * Resolves the calls tool search is about: a search, a call through the call tool (to a deferred tool, whose
 * arguments are checked against its schema, or to a loaded one), and a direct call of a deferred tool by its
 * own name (models often call what a search showed them). Undefined for every other call.
 */
export function resolveToolSearchCall(
  call: ToolUseBlock,
  tool: EnabledTool | undefined,
  loaded: ReadonlyMap<string, EnabledTool>,
  deferred: DeferredTools | undefined,
): ResolvedCall | undefined {
  if (tool?.kind === "tool_search") return { outcome: searchOutcome(call.input, deferred) }
  if (tool?.kind === "tool_call") {
    const args = record(call.input)
    const name = typeof args.name === "string" ? args.name.trim() : ""
    if (!name)
      return {
        outcome: failure(
          `Invalid arguments for ${tool.name}: missing required parameter 'name'.`,
          `${tool.name}: no name`,
        ),
      }
    const target = deferred?.get(name)
    if (target) return deferredCall(target, args.arguments, deferred!)
    const direct = loaded.get(name)
    if (direct && direct.kind !== "tool_search" && direct.kind !== "tool_call")
      return { tool: direct, input: args.arguments ?? {} }
    const near = deferred?.search(name, 3).map((m) => m.tool.name) ?? []
    const hint = near.length > 0 ? ` Close matches: ${near.join(", ")}.` : ""
    return {
      outcome: failure(
        `There is no tool named "${name}".${hint} Find tools with ${SEARCH_TOOLS_NAME} and use the exact name it returns.`,
        `${tool.name} ${oneLine(name, 40)}: unknown tool`,
      ),
    }
  }
  if (!tool && deferred) {
    const target = deferred.get(call.name)
    if (target) return deferredCall(target, call.input, deferred)
  }
  return undefined
}
