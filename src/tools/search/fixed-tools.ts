import { nameList } from "../../notices.js"
import type { EnabledTool } from "../spec.js"

/** The name of the tool that searches the deferred tools. */
export const SEARCH_TOOLS_NAME = "search_tools"

/** The name of the tool that calls a deferred tool by name. */
export const CALL_TOOL_NAME = "call_tool"

/** Most matches one search returns. */
export const MAX_SEARCH_LIMIT = 10

/** Matches a search returns when the call gives no limit. */
export const DEFAULT_SEARCH_LIMIT = 5

/**
 * What the deferred tools are, for the search tool's description: how many, and from which MCP servers.
 * Server names are data from the servers; they are listed, never evaluated.
 */
function inventory(deferred: readonly EnabledTool[]): string {
  const servers = [...new Set(deferred.flatMap((t) => (t.mcp ? [t.mcp.server] : [])))].sort()
  const others = deferred.filter((t) => !t.mcp).length
  const parts = [...(servers.length > 0 ? [`the MCP servers ${nameList(servers)}`] : [])]
  if (others > 0) parts.push(`${others} other tool${others === 1 ? "" : "s"}`)
  return `${deferred.length} tool${deferred.length === 1 ? "" : "s"}${parts.length > 0 ? ` from ${nameList(parts)}` : ""}`
}

/** The search tool: finds deferred tools by what they do and returns their full parameter schemas. */
export function searchToolsTool(deferred: readonly EnabledTool[]): EnabledTool {
  return {
    id: SEARCH_TOOLS_NAME,
    kind: "tool_search",
    name: SEARCH_TOOLS_NAME,
    description: `Finds tools that are not in your tool list: ${inventory(deferred)}. Describe what you want to do in a few words (for example "create a pull request" or "take a screenshot of the page"); the best matches come back with their names, descriptions and full parameter schemas. Call a tool found this way with ${CALL_TOOL_NAME}. Search again with other words when nothing fits.`,
    snippet: "Find a tool that is not loaded, by what it does",
    guidelines: [],
    parameters: {
      type: "object",
      properties: {
        query: { type: "string", description: "What you want to do, in a few words." },
        limit: {
          type: "integer",
          description: `How many matches to return (1 to ${MAX_SEARCH_LIMIT}, default ${DEFAULT_SEARCH_LIMIT}).`,
        },
      },
      required: ["query"],
    },
    examples: { query: "create a pull request" },
  }
}

/** The call tool: runs a deferred tool by name with arguments checked against its schema. */
export function callToolTool(): EnabledTool {
  return {
    id: CALL_TOOL_NAME,
    kind: "tool_call",
    name: CALL_TOOL_NAME,
    description: `Calls a tool found with ${SEARCH_TOOLS_NAME}, by its exact name, with arguments that match its parameter schema. Arguments that do not match are not sent; the result says what was wrong.`,
    snippet: `Call a tool found with ${SEARCH_TOOLS_NAME}`,
    guidelines: [],
    parameters: {
      type: "object",
      properties: {
        name: { type: "string", description: `The tool's name, as ${SEARCH_TOOLS_NAME} returned it.` },
        arguments: { type: "object", description: "The tool's arguments as a JSON object." },
      },
      required: ["name"],
    },
    examples: { name: "mcp__github__create_pull_request", arguments: '{"title": "Fix the parser"}' },
  }
}
