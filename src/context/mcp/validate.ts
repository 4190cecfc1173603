import type { z } from "zod"
import { fieldIssues, issuesLine } from "../../field-issues.js"
import { type McpServerInfo, type McpToolInfo, mcpServerSchema, mcpToolSchema } from "../prompt-context.js"

/** A server snapshot as the context accepts it, the tools left out and why, or why the whole server is. */
export interface CheckedSnapshot {
  info?: McpServerInfo
  /** The tools left out: each one's name (when it has a string name) and the problems found. */
  droppedTools: { name?: string; problems: string }[]
  /** Set when the server as a whole does not fit the context. */
  problem?: string
}

function describeIssues(error: z.ZodError): string {
  return issuesLine(fieldIssues(error), "")
}

/**
 * Checks a snapshot against the context's MCP schema, so one server with a tool the SDK lets through
 * (an empty name, say) cannot make the whole gather fail: bad tools are left out, and a server still
 * invalid without them is refused.
 */
export function checkSnapshot(info: McpServerInfo): CheckedSnapshot {
  const tools: McpToolInfo[] = []
  const droppedTools: CheckedSnapshot["droppedTools"] = []
  for (const tool of info.tools as unknown[]) {
    const parsed = mcpToolSchema.safeParse(tool)
    if (parsed.success) tools.push(parsed.data)
    else {
      const name = (tool as { name?: unknown } | null)?.name
      droppedTools.push({ ...(typeof name === "string" ? { name } : {}), problems: describeIssues(parsed.error) })
    }
  }
  const server = mcpServerSchema.safeParse({ ...info, tools })
  if (!server.success) return { droppedTools, problem: `its snapshot is not valid (${describeIssues(server.error)})` }
  return { info: server.data, droppedTools }
}
