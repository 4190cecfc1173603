/**
 * The Anthropic Messages request as a server reads it: every top-level field of the current API (beta
 * included), the message roles, and the checks the real API makes that a replay or a gateway must make too.
 */
import type { Role } from "../../history/message.js"
import { type FieldUse, recordOf } from "../request-shape.js"

/** Every top-level field of a Messages request (GA and beta), and how a server treats it. */
export const ANTHROPIC_REQUEST_FIELDS = {
  model: "required",
  max_tokens: "required",
  messages: "required",
  system: "read",
  tools: "read",
  tool_choice: "read",
  thinking: "read",
  stream: "read",
  stop_sequences: "read",
  output_config: "read",
  metadata: "accepted",
  cache_control: "accepted",
  container: "accepted",
  context_management: "accepted",
  compaction: "accepted",
  diagnostics: "accepted",
  inference_geo: "accepted",
  service_tier: "accepted",
  speed: "accepted",
  mcp_servers: "accepted",
  output_format: "read",
  billing_policy: "accepted",
  fallback_credit_token: "accepted",
  fallbacks: "accepted",
  thread: "accepted",
  // The SDK sends `betas` as the anthropic-beta header; a body that carries it is not refused.
  betas: "accepted",
  user_profile_id: "accepted",
  workspace_id: "accepted",
} as const satisfies Record<string, FieldUse>

/** Each message role of the Messages API and the internal role it becomes (`system`: a mid-conversation system message). */
export const ANTHROPIC_MESSAGE_ROLES = {
  user: "user",
  assistant: "assistant",
  system: "system",
} as const satisfies Record<string, Role>

/** Tool types that are declared without a `name` (toolsets name their server or members instead). */
export const ANTHROPIC_NAMELESS_TOOL_TYPES = {
  mcp_toolset: true,
  browser_toolset_20260801: true,
  computer_toolset_20260801: true,
} as const satisfies Record<string, true>

const isRole = (role: unknown): role is keyof typeof ANTHROPIC_MESSAGE_ROLES =>
  typeof role === "string" && Object.hasOwn(ANTHROPIC_MESSAGE_ROLES, role)

/**
 * What makes a Messages body malformed, in the API's own wording (`messages.1.role: …`); empty when it is fine.
 * Fields it does not know are not problems: the API passes over what it does not use.
 */
export function checkAnthropicRequest(body: Record<string, unknown>): string[] {
  const problems: string[] = []
  if (typeof body.model !== "string" || body.model === "") problems.push("model: a model id is required")
  if (typeof body.max_tokens !== "number" || !Number.isInteger(body.max_tokens) || body.max_tokens < 1)
    problems.push("max_tokens: a positive integer is required")
  if (!Array.isArray(body.messages) || body.messages.length === 0)
    problems.push("messages: at least one message is required")
  const messages: unknown[] = Array.isArray(body.messages) ? body.messages : []
  messages.forEach((m, i) => {
    const message = recordOf(m)
    if (!isRole(message?.role)) problems.push(`messages.${i}.role: must be "user", "assistant" or "system"`)
    if (typeof message?.content !== "string" && !Array.isArray(message?.content))
      problems.push(`messages.${i}.content: must be a string or a list of content blocks`)
    else if (message.role === "system" && Array.isArray(message.content)) {
      message.content.forEach((b, j) => {
        if (recordOf(b)?.type !== "text")
          problems.push(`messages.${i}.content.${j}: a system message holds text blocks`)
      })
    }
  })
  if (body.system !== undefined && typeof body.system !== "string" && !Array.isArray(body.system))
    problems.push("system: must be a string or a list of text blocks")
  if (body.tools !== undefined && !Array.isArray(body.tools)) problems.push("tools: must be a list")
  const tools: unknown[] = Array.isArray(body.tools) ? body.tools : []
  tools.forEach((t, i) => {
    const tool = recordOf(t)
    const nameless = typeof tool?.type === "string" && Object.hasOwn(ANTHROPIC_NAMELESS_TOOL_TYPES, tool.type)
    if (!nameless && typeof tool?.name !== "string") problems.push(`tools.${i}.name: a tool name is required`)
  })
  return problems
}
