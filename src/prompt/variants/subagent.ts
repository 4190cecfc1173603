import { defineVariant } from "../variant.js"

/** A delegated task: the lean set of sections, tools to explore, change and report, no questions. */
export const subagent = defineVariant({
  id: "subagent",
  description: "Any model running as a subagent; lean sections, no user interaction.",
  priority: 100,
  match: [{ audience: "subagent" }],
  toolCalling: "auto",
  components: ["agent-role", "tool-use", "editing-files", "rules", "objective", "user-instructions", "system-info"],
  tools: [
    "execute_command",
    "read_file",
    "write_to_file",
    "replace_in_file",
    "search_files",
    "list_files",
    "list_code_definition_names",
    "attempt_completion",
  ],
  mcpTools: false,
})
