import { z } from "zod"
import { objectArg, taskProgressArg } from "./args.js"
import { mcpBlocks, simplify } from "./mcp-content.js"
import { failure, success } from "./outcome.js"
import { defineExecutor } from "./types.js"

const schema = z.object({
  server_name: z.string({ error: "expected a server name" }).trim().min(1, "must not be empty"),
  tool_name: z.string({ error: "expected a tool name" }).trim().min(1, "must not be empty"),
  arguments: objectArg.optional(),
  task_progress: taskProgressArg,
})

/** use_mcp_tool: calls a tool of a connected MCP server through the host's MCP caller. */
export const useMcpToolExecutor = defineExecutor({
  id: "use_mcp_tool",
  schema,
  async run(input, env) {
    const label = `${input.server_name}/${input.tool_name}`
    if (!env.mcp) return failure("No MCP servers are connected in this session.", `mcp ${label}: not connected`)
    let result: Awaited<ReturnType<NonNullable<typeof env.mcp>["callTool"]>>
    try {
      result = await env.mcp.callTool(input.server_name, input.tool_name, input.arguments ?? {}, { signal: env.signal })
    } catch (error) {
      return failure(`The MCP call ${label} failed: ${(error as Error).message}`, `mcp ${label}: failed`)
    }
    let blocks = mcpBlocks(result.content ?? [], env.limits.mcpMaxChars)
    if (blocks.length === 0 && result.structuredContent !== undefined) {
      blocks = mcpBlocks(
        [{ type: "text", text: JSON.stringify(result.structuredContent, null, 2) }],
        env.limits.mcpMaxChars,
      )
    }
    const content = blocks.length ? simplify(blocks) : "(the tool returned no content)"
    return result.isError
      ? failure(typeof content === "string" ? content : "The MCP tool reported an error.", `mcp ${label}: error`)
      : success(content, `called ${label}`)
  },
})
