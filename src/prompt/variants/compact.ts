import { defineVariant } from "../variant.js"

/** Small and local models: the core tools and the essential sections only, at most 1,200 tokens in all. */
export const compact = defineVariant({
  id: "compact",
  description: "Local and small-window models; core tools only, a prompt of at most 1,200 tokens.",
  priority: 80,
  match: [{ local: true }, { maxContextWindow: 32_000 }],
  toolCalling: "xml",
  // No editing-files section: the XML tool docs already show the edit format, and tokens are scarce.
  components: ["agent-role", "tool-use", "rules", "objective", "user-instructions", "system-info"],
  tools: ["execute_command", "read_file", "write_to_file", "replace_in_file", "search_files", "attempt_completion"],
  mcpTools: false,
  // `brief`: shared sections leave out some explanatory sentences to stay within maxTokens.
  values: { brief: true },
  maxTokens: 1200,
})
