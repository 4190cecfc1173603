import type { ToolKind } from "../tools/spec.js"

/** Which tool calls run without asking: `ask` every one, `reads` those that only read, `all` every one. */
export type ApprovalPolicy = "ask" | "reads" | "all"

/** Asks the person whether a call may run; resolves true for yes. */
export type ConfirmCall = (summary: string, signal: AbortSignal) => Promise<boolean>

/** Kinds that only read the workspace or the web, or talk to the user: they run under `reads`. */
export const READ_KINDS: ReadonlySet<ToolKind> = new Set([
  "read",
  "search",
  "list",
  "definitions",
  "fetch",
  "web_search",
  "mcp_resource",
  "skill",
])

/** Kinds that never need approval: they only talk to the user or end the turn. */
const CONTROL_KINDS: ReadonlySet<ToolKind> = new Set(["ask", "complete", "plan_respond", "act_respond", "new_task"])

/** Whether a call of this kind needs the person's yes under the policy. */
export function needsApproval(policy: ApprovalPolicy, kind: ToolKind): boolean {
  if (CONTROL_KINDS.has(kind) || policy === "all") return false
  if (policy === "reads") return !READ_KINDS.has(kind)
  return true
}

export { deniedMessage } from "../notices.js"
