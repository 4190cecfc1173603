import { STANDARD_ORDER } from "../components/index.js"
import { defineVariant } from "../variant.js"
import { FULL_TOOLS } from "./tool-sets.js"

/** Claude models: native tool use by default (XML on request), every section. */
export const claude = defineVariant({
  id: "claude",
  description: "Anthropic Claude models; native tool calls by default, XML when asked.",
  priority: 50,
  match: [{ families: ["claude"] }],
  toolCalling: "native",
  components: [...STANDARD_ORDER],
  tools: FULL_TOOLS,
  mcpTools: true,
})
