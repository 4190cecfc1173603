import { STANDARD_ORDER } from "../components/index.js"
import { defineVariant } from "../variant.js"
import { FULL_TOOLS } from "./tool-sets.js"

/** Gemini models: native function calling, every section. */
export const gemini = defineVariant({
  id: "gemini",
  description: "Google Gemini models; native function calling.",
  priority: 50,
  match: [{ families: ["gemini"] }],
  toolCalling: "native",
  components: [...STANDARD_ORDER],
  tools: FULL_TOOLS,
  mcpTools: true,
})
