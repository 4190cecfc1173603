import { defineVariant } from "../variant.js"

/** Small and local models: the core tools and the essential sections only, at most 1,200 tokens in all. */
export const compact = defineVariant({
  id: "compact",
  description: "Local and small-window models; core tools only, a prompt of at most 1,200 tokens.",
  priority: 80,
  match: [{ local: true }, { maxContextWindow: 32_000 }],
  toolCalling: "xml",
  components: ["agent-role", "tool-use", "editing-files", "rules", "objective", "user-instructions", "system-info"],
  tools: ["execute_command", "read_file", "write_to_file", "replace_in_file", "search_files", "attempt_completion"],
  mcpTools: false,
  maxTokens: 1200,
})
