import { defineTool } from "../spec.js"
import { taskProgressParameter } from "./task-progress.js"

/** use_mcp_tool: calls a tool of a connected MCP server. Needs a server that has tools. */
export const useMcpTool = defineTool({
  id: "use_mcp_tool",
  kind: "mcp_call",
  snippet: "Call a tool of a connected MCP server.",
  description:
    "Calls a tool that a connected MCP server provides and returns its result. The servers, their tools and " +
    "each tool's input schema are listed with the MCP servers; call only tools listed there.",
  parameters: {
    server_name: {
      schema: { type: "string", description: "The server's name, as listed." },
      required: true,
      example: "github",
    },
    tool_name: {
      schema: { type: "string", description: "The tool's name on that server." },
      required: true,
      example: "search_issues",
    },
    arguments: {
      schema: { type: "object", description: "The tool's arguments, matching its input schema." },
      required: true,
      example: '{"query": "timeout", "state": "open"}',
    },
    task_progress: taskProgressParameter,
  },
  when: ({ context }) => context.mcpServers.some((server) => server.tools.length > 0),
})
