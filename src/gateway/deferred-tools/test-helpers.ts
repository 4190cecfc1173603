/** Requests with many deferred MCP tools (the tool-search fixtures: every tool of their real servers), as clients send them. */
import { loadToolSearchServers } from "../../../test/fixtures/tool-search/load.js"

/** One Anthropic tool definition of the fixture servers, named as Claude Code names MCP tools. */
export type FixtureTool = {
  name: string
  description: string
  input_schema: Record<string, unknown>
}

/** Every fixture tool as an Anthropic tool definition (`mcp__<server>__<tool>`), in server order. */
export function fixtureTools(): FixtureTool[] {
  return loadToolSearchServers().flatMap((server) =>
    server.tools.map((t) => ({
      name: `mcp__${server.name}__${t.name}`,
      description: t.description ?? "",
      input_schema: (t.inputSchema ?? { type: "object", properties: {} }) as Record<string, unknown>,
    })),
  )
}

/** The tool list of an Anthropic request that defers every fixture tool and asks for Anthropic's BM25 tool search. */
export function deferredToolList(loaded: readonly FixtureTool[] = [BASH]): Record<string, unknown>[] {
  return [
    ...loaded,
    { type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25" },
    ...fixtureTools().map((t) => ({ ...t, defer_loading: true })),
  ]
}

/** A tool the client always loads. */
export const BASH: FixtureTool = {
  name: "Bash",
  description: "Runs a shell command.",
  input_schema: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
}
