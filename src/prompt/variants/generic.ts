import { STANDARD_ORDER } from "../components/index.js"
import { defineVariant } from "../variant.js"
import { FULL_TOOLS } from "./tool-sets.js"

/** The fallback for any model: every section, tools described in the prompt (XML dialect). */
export const generic = defineVariant({
  id: "generic",
  description: "Any model; tools described in the prompt and called in XML.",
  priority: 0,
  match: [],
  toolCalling: "xml",
  components: [...STANDARD_ORDER],
  tools: FULL_TOOLS,
  mcpTools: true,
})
