import { z } from "zod"
import { taskProgressArg } from "./args.js"
import { mcpBlocks, simplify } from "./mcp-content.js"
import { failure, success } from "./outcome.js"
import { defineExecutor } from "./types.js"

const schema = z.object({
  server_name: z.string({ error: "expected a server name" }).trim().min(1, "must not be empty"),
  uri: z.string({ error: "expected a resource URI" }).trim().min(1, "must not be empty"),
  task_progress: taskProgressArg,
})

/** access_mcp_resource: reads a resource of a connected MCP server through the host's MCP caller. */
export const accessMcpResourceExecutor = defineExecutor({
  id: "access_mcp_resource",
  schema,
  async run(input, env) {
    const label = `${input.server_name} ${input.uri}`
    if (!env.mcp) return failure("No MCP servers are connected in this session.", `resource ${label}: not connected`)
    let contents: Awaited<ReturnType<NonNullable<typeof env.mcp>["readResource"]>>["contents"]
    try {
      contents = (await env.mcp.readResource(input.server_name, input.uri, { signal: env.signal })).contents ?? []
    } catch (error) {
      return failure(
        `Reading ${input.uri} from ${input.server_name} failed: ${(error as Error).message}`,
        `resource ${label}: failed`,
      )
    }
    const blocks = mcpBlocks(
      contents.map((resource) => ({ type: "resource" as const, resource })),
      env.limits.mcpMaxChars,
    )
    return success(blocks.length ? simplify(blocks) : "(the resource is empty)", `read resource ${label}`)
  },
})
