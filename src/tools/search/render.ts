import { CALL_TOOL_NAME } from "./fixed-tools.js"
import type { ToolMatch } from "./tool-index.js"

/** The search tool's result: each match with its name, description and full parameter schema. */
export function renderToolMatches(query: string, matches: readonly ToolMatch[], searched: number): string {
  if (matches.length === 0)
    return `No tool matched "${query}" among ${searched} tools. Search again with other words (what the tool does, or the service it belongs to).`
  const lines = [
    `${matches.length} tool${matches.length === 1 ? "" : "s"} for "${query}", best first. Call one with ${CALL_TOOL_NAME} (its name and arguments matching the schema).`,
  ]
  for (const { tool } of matches) {
    lines.push("", `## ${tool.name}`)
    if (tool.mcp) lines.push(`MCP server ${tool.mcp.server}, tool ${tool.mcp.tool}.`)
    lines.push(tool.description.trim(), `Parameters (JSON Schema): ${JSON.stringify(tool.parameters)}`)
  }
  return lines.join("\n")
}
