/**
 * Tool searches on the Messages API's wire, both ways: a `tool_search` block (the call and its result in one) is
 * a `server_tool_use` block followed by a `tool_search_tool_result` block holding `tool_reference`s, and a tool
 * result's references are `tool_reference` parts of its content.
 */
import type { ToolSearchBlock } from "../../history/message.js"
import { obj, str } from "../stream.js"
import { ANTHROPIC_REGEX_TOOL_SEARCH, ANTHROPIC_TOOL_SEARCH } from "./tools.js"
import type {
  AnthropicToolSearchName,
  ServerToolUseBlockParam,
  ToolReferenceBlockParam,
  ToolSearchErrorCode,
  ToolSearchToolResultBlockParam,
} from "./wire-types.js"

/** The names of Anthropic's search tools, as a `server_tool_use` block names them. */
const SEARCH_TOOL_NAMES: ReadonlySet<string> = new Set<AnthropicToolSearchName>([
  ANTHROPIC_TOOL_SEARCH.name,
  ANTHROPIC_REGEX_TOOL_SEARCH.name,
])

/** The errors a tool search result may name; any other reason is written as `unavailable`. */
const ERROR_CODES: ReadonlySet<string> = new Set<ToolSearchErrorCode>([
  "invalid_tool_input",
  "unavailable",
  "too_many_requests",
  "execution_time_exceeded",
])

/** Whether a `server_tool_use` block's name is one of Anthropic's tool searches. */
export function isToolSearchName(name: unknown): name is AnthropicToolSearchName {
  return typeof name === "string" && SEARCH_TOOL_NAMES.has(name)
}

/** References to deferred tools as `tool_reference` parts. */
export function referencesToWire(names: readonly string[]): ToolReferenceBlockParam[] {
  return names.map((name) => ({ type: "tool_reference", tool_name: name }))
}

/** A tool search as the two blocks the API writes for it: the call, then its result. */
export function toolSearchToWire(
  block: Omit<ToolSearchBlock, "type">,
): [ServerToolUseBlockParam, ToolSearchToolResultBlockParam] {
  const input = obj(block.input) ?? {}
  return [
    {
      type: "server_tool_use",
      id: block.id,
      name: isToolSearchName(block.name) ? block.name : ANTHROPIC_TOOL_SEARCH.name,
      input,
    },
    {
      type: "tool_search_tool_result",
      tool_use_id: block.id,
      content:
        block.error !== undefined
          ? {
              type: "tool_search_tool_result_error",
              error_code: (ERROR_CODES.has(block.error) ? block.error : "unavailable") as ToolSearchErrorCode,
            }
          : { type: "tool_search_tool_search_result", tool_references: referencesToWire(block.found) },
    },
  ]
}

/** The tool names a `tool_search_tool_result` block's content references, and its error code when it failed. */
export function toolSearchResultFromWire(content: unknown): { found: string[]; error?: string } | undefined {
  const record = obj(content)
  if (record?.type === "tool_search_tool_result_error") return { found: [], error: str(record.error_code) ?? "error" }
  if (record?.type !== "tool_search_tool_search_result" || !Array.isArray(record.tool_references)) return undefined
  const found: string[] = []
  for (const ref of record.tool_references) {
    const name = str(obj(ref)?.tool_name)
    if (name === undefined) return undefined
    found.push(name)
  }
  return { found }
}
