import { STANDARD_ORDER } from "../components/index.js"
import { defineVariant } from "../variant.js"
import { FULL_TOOLS } from "./tool-sets.js"

/**
 * Gemini 3 weighs the end of the instructions most and over-applies broad negatives such as "do not guess"
 * (Google, Gemini 3 prompting guide): the last section ends with the constraints that matter most, stated
 * as what to do, including checking that something exists before relying on it.
 */
const LAST_WORD = `\${% if audience == "primary" %}Most important, whatever else the task needs:
- \${% if mode == "plan" %}Change nothing until act mode.\${% else %}Do what the task asks and no more.\${% endif %}
- \${% if tools.names.size > 0 %}Before you rely on a file, function, command or library, check with your tools that it exists here.\${% else %}Say which parts of your answer you could not check.\${% endif %}
- Base what you report on what you saw in this session; where you reason beyond it, say so.\${% endif %}`

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
  patches: { objective: { append: `\n\n${LAST_WORD}` } },
})
