/** Built-in tool ids shared by variants; each variant lists what it offers, gates decide the rest. */

/** Tools for exploring and running things. */
export const CORE_TOOLS = [
  "execute_command",
  "read_file",
  "write_to_file",
  "search_files",
  "list_files",
  "list_code_definition_names",
] as const

/** Tools that talk to the user or steer the session. */
export const SESSION_TOOLS = [
  "ask_followup_question",
  "attempt_completion",
  "new_task",
  "plan_mode_respond",
  "act_mode_respond",
] as const

/** Tools that need a feature or outside resources, each behind its own gate. */
export const EXTRA_TOOLS = [
  "browser_action",
  "web_fetch",
  "web_search",
  // use_mcp_tool is left out: variants offer MCP tools directly. Hosts can include it.
  "access_mcp_resource",
  "use_skill",
  "use_subagents",
] as const

/** The full tool set with SEARCH/REPLACE editing. */
export const FULL_TOOLS: readonly string[] = [...CORE_TOOLS, "replace_in_file", ...SESSION_TOOLS, ...EXTRA_TOOLS]
