import { defineTool } from "../spec.js"
import { taskProgressParameter } from "./task-progress.js"

/** access_mcp_resource: reads a resource of a connected MCP server. Needs a server with resources. */
export const accessMcpResource = defineTool({
  id: "access_mcp_resource",
  kind: "mcp_resource",
  snippet: "Read a resource of a connected MCP server by URI.",
  description:
    "Reads a resource (a document, a record, some data) that a connected MCP server offers. The resources and " +
    "URI templates of each server are listed with the MCP servers; fill in a template's placeholders to form a URI.",
  parameters: {
    server_name: {
      schema: { type: "string", description: "The server's name, as listed." },
      required: true,
      example: "docs",
    },
    uri: {
      schema: { type: "string", description: "The resource's URI." },
      required: true,
      example: "docs://guides/setup.md",
    },
    task_progress: taskProgressParameter,
  },
  when: ({ context }) =>
    context.mcpServers.some((server) => server.resources.length > 0 || server.resourceTemplates.length > 0),
})
