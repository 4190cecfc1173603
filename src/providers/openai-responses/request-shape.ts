/**
 * The OpenAI Responses request as a server reads it: every top-level field of the current API, the message
 * roles, every input item type and the side it stands for, the tool kinds, and the checks the real API makes.
 */
import { type FieldUse, recordOf, type WireSide } from "../request-shape.js"

/** Every top-level field of a Responses request, and how a server treats it. */
export const OPENAI_RESPONSES_REQUEST_FIELDS = {
  model: "read",
  input: "read",
  instructions: "read",
  tools: "read",
  tool_choice: "read",
  parallel_tool_calls: "read",
  stream: "read",
  reasoning: "read",
  include: "read",
  store: "read",
  previous_response_id: "read",
  max_output_tokens: "read",
  background: "accepted",
  context_management: "accepted",
  conversation: "accepted",
  metadata: "accepted",
  moderation: "accepted",
  prompt: "accepted",
  prompt_cache_key: "accepted",
  prompt_cache_options: "accepted",
  prompt_cache_retention: "accepted",
  safety_identifier: "accepted",
  service_tier: "accepted",
  stream_options: "accepted",
  temperature: "accepted",
  text: "read",
  top_logprobs: "accepted",
  top_p: "accepted",
  truncation: "accepted",
  user: "accepted",
} as const satisfies Record<string, FieldUse>

/** Each role of a message item and the side it stands for (`developer` and `system` are system messages). */
export const OPENAI_RESPONSES_ROLES = {
  user: "user",
  assistant: "assistant",
  system: "system",
  developer: "system",
} as const satisfies Record<string, WireSide>

/** What an input item is to a server: a message (its role decides), the model's output, a tool's result, or state. */
export type ItemSide = "message" | "model" | "tool-result" | "state"

/**
 * Every input item type and what it is: the calls the model (or a hosted tool) made are `model`; outputs
 * sent back for client-run tools are `tool-result`; references, compaction and tool lists are `state`.
 */
export const OPENAI_RESPONSES_ITEM_SIDES = {
  message: "message",
  function_call: "model",
  custom_tool_call: "model",
  reasoning: "model",
  file_search_call: "model",
  computer_call: "model",
  web_search_call: "model",
  tool_search_call: "model",
  image_generation_call: "model",
  code_interpreter_call: "model",
  local_shell_call: "model",
  shell_call: "model",
  apply_patch_call: "model",
  mcp_list_tools: "model",
  mcp_approval_request: "model",
  mcp_call: "model",
  program: "model",
  function_call_output: "tool-result",
  custom_tool_call_output: "tool-result",
  computer_call_output: "tool-result",
  local_shell_call_output: "tool-result",
  shell_call_output: "tool-result",
  apply_patch_call_output: "tool-result",
  mcp_approval_response: "tool-result",
  tool_search_output: "tool-result",
  program_output: "tool-result",
  additional_tools: "state",
  compaction: "state",
  compaction_trigger: "state",
  item_reference: "state",
} as const satisfies Record<string, ItemSide>

/** What an input item is; an item without a type is a message, an unknown type is `undefined`. */
export function responsesItemSide(item: Record<string, unknown>): ItemSide | undefined {
  const type = item.type ?? "message"
  return typeof type === "string" && Object.hasOwn(OPENAI_RESPONSES_ITEM_SIDES, type)
    ? OPENAI_RESPONSES_ITEM_SIDES[type as keyof typeof OPENAI_RESPONSES_ITEM_SIDES]
    : undefined
}

/**
 * The names of the tools a Responses request declares for the client to run: function and custom tools, and
 * those inside namespaces. Hosted tools (web search, shell, apply_patch, …) have no name and are not listed.
 */
export function openAIResponsesToolNames(body: Record<string, unknown>): string[] {
  const names: string[] = []
  const add = (tools: unknown) => {
    for (const t of Array.isArray(tools) ? tools : []) {
      const tool = recordOf(t)
      if (tool?.type === "namespace") add(tool.tools)
      else if ((tool?.type === "function" || tool?.type === "custom") && typeof tool.name === "string")
        names.push(tool.name)
    }
  }
  add(body.tools)
  return names
}

/** What makes a Responses body malformed, in the API's own wording; empty when it is fine. */
export function checkOpenAIResponsesRequest(body: Record<string, unknown>): string[] {
  const problems: string[] = []
  // A stored prompt template may name the model.
  if ((typeof body.model !== "string" || body.model === "") && body.prompt === undefined)
    problems.push("model: a model id is required")
  if (body.input !== undefined && typeof body.input !== "string" && !Array.isArray(body.input))
    problems.push("input: must be a string or a list of input items")
  if (
    body.input === undefined &&
    body.previous_response_id === undefined &&
    body.conversation === undefined &&
    body.prompt === undefined &&
    body.generate !== false
  )
    problems.push("input: required")
  const items: unknown[] = Array.isArray(body.input) ? body.input : []
  // Item types newer than the installed SDK are passed over, not refused: the live API may know them.
  items.forEach((x, i) => {
    const item = recordOf(x)
    if (!item) problems.push(`input[${i}]: must be an input item object`)
    else if ((item.type ?? "message") === "message" && !Object.hasOwn(OPENAI_RESPONSES_ROLES, String(item.role)))
      problems.push(`input[${i}].role: must be "user", "assistant", "system" or "developer"`)
  })
  if (body.tools !== undefined && !Array.isArray(body.tools)) problems.push("tools: must be a list")
  const tools: unknown[] = Array.isArray(body.tools) ? body.tools : []
  tools.forEach((t, i) => {
    const tool = recordOf(t)
    if ((tool?.type === "function" || tool?.type === "custom") && typeof tool.name !== "string")
      problems.push(`tools[${i}].name: a tool name is required`)
  })
  return problems
}
