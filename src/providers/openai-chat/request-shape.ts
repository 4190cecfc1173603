/**
 * The OpenAI Chat Completions request as a server reads it: every top-level field of the current API, the
 * message roles and what each stands for, the tool kinds, and the checks the real API makes.
 */
import { type FieldUse, recordOf, type WireSide } from "../request-shape.js"

/** Every top-level field of a Chat Completions request, and how a server treats it. */
export const OPENAI_CHAT_REQUEST_FIELDS = {
  model: "required",
  messages: "required",
  tools: "read",
  functions: "read",
  tool_choice: "read",
  function_call: "read",
  stream: "read",
  stream_options: "read",
  max_completion_tokens: "read",
  max_tokens: "read",
  reasoning_effort: "read",
  parallel_tool_calls: "read",
  audio: "accepted",
  frequency_penalty: "accepted",
  logit_bias: "accepted",
  logprobs: "accepted",
  metadata: "accepted",
  modalities: "accepted",
  moderation: "accepted",
  n: "accepted",
  prediction: "accepted",
  presence_penalty: "accepted",
  prompt_cache_key: "accepted",
  prompt_cache_options: "accepted",
  prompt_cache_retention: "accepted",
  response_format: "read",
  safety_identifier: "accepted",
  seed: "accepted",
  service_tier: "accepted",
  stop: "accepted",
  store: "accepted",
  temperature: "accepted",
  top_logprobs: "accepted",
  top_p: "accepted",
  user: "accepted",
  verbosity: "accepted",
  web_search_options: "accepted",
} as const satisfies Record<string, FieldUse>

/**
 * Each message role and the side it stands for: `system` and `developer` are system messages (the first run
 * of them is the system prompt, later ones are mid-conversation system messages); `tool` and the legacy
 * `function` carry tool results.
 */
export const OPENAI_CHAT_ROLES = {
  developer: "system",
  system: "system",
  user: "user",
  assistant: "assistant",
  tool: "tool-result",
  function: "tool-result",
} as const satisfies Record<string, WireSide>

/** The names of the tools a Chat request declares: function tools, custom tools and legacy `functions`. */
export function openAIChatToolNames(body: Record<string, unknown>): string[] {
  const names: string[] = []
  for (const t of Array.isArray(body.tools) ? body.tools : []) {
    const tool = recordOf(t)
    const name = recordOf(tool?.type === "custom" ? tool.custom : tool?.function)?.name
    if (typeof name === "string") names.push(name)
  }
  for (const f of Array.isArray(body.functions) ? body.functions : []) {
    const name = recordOf(f)?.name
    if (typeof name === "string") names.push(name)
  }
  return names
}

/** What makes a Chat Completions body malformed, in the API's own wording; empty when it is fine. */
export function checkOpenAIChatRequest(body: Record<string, unknown>): string[] {
  const problems: string[] = []
  if (typeof body.model !== "string" || body.model === "") problems.push("model: a model id is required")
  if (!Array.isArray(body.messages) || body.messages.length === 0)
    problems.push("messages: at least one message is required")
  const messages: unknown[] = Array.isArray(body.messages) ? body.messages : []
  messages.forEach((m, i) => {
    const role = recordOf(m)?.role
    if (typeof role !== "string" || !Object.hasOwn(OPENAI_CHAT_ROLES, role))
      problems.push(`messages[${i}].role: unknown role ${String(role)}`)
  })
  if (body.tools !== undefined && !Array.isArray(body.tools)) problems.push("tools: must be a list")
  const tools: unknown[] = Array.isArray(body.tools) ? body.tools : []
  tools.forEach((t, i) => {
    const tool = recordOf(t)
    if (tool?.type === "function" && typeof recordOf(tool.function)?.name !== "string")
      problems.push(`tools[${i}].function.name: a function name is required`)
    if (tool?.type === "custom" && typeof recordOf(tool.custom)?.name !== "string")
      problems.push(`tools[${i}].custom.name: a tool name is required`)
  })
  return problems
}
