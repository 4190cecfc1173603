import { STANDARD_ORDER } from "../components/index.js"
import { defineVariant } from "../variant.js"
import { FULL_TOOLS } from "./tool-sets.js"

/**
 * Claude 4.x follows instructions literally: asked to "suggest", it suggests, so the prompt says when to act
 * and when only to advise (Anthropic, Claude 4 prompting best practices: be explicit about action).
 */
const ACTION = `\${% if audience == "primary" %}\${% if tools.by_kind.edit or tools.by_kind.write %}- When the user asks for a change, make it with your tools instead of describing it; when they ask for a review, an explanation or options, answer without editing. If the request could mean either, act on the likelier reading and say which one you took.
\${% endif %}\${% endif %}`

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
  patches: { rules: { append: `\n${ACTION}` } },
})
