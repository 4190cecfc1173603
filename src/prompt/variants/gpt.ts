import { STANDARD_ORDER } from "../components/index.js"
import { defineVariant } from "../variant.js"
import { CORE_TOOLS, EXTRA_TOOLS, SESSION_TOOLS } from "./tool-sets.js"

/**
 * GPT-5 stops early or hands back when unsure unless told to persist (OpenAI, GPT-5 prompting guide:
 * agentic eagerness); Codex-trained models batch reads only when told to (OpenAI, Codex prompting guide).
 * Nothing here asks for an upfront plan or status message: the Codex guide warns that this ends turns early.
 */
const PERSIST = `\${% if audience == "primary" %}Keep going until the task is done before you end your turn. When you are unsure, find out with your tools or take the most reasonable reading and note it\${% if tools.by_kind.ask %}; ask only when you are blocked\${% endif %}.\${% endif %}`

const BATCH = `\${% if tool_calling == "native" %}Before you explore, decide which files and searches you need, and request them in one batch of calls.\${% endif %}`

/** GPT-5 and later (GPT-6 ...) and OpenAI reasoning models: native tools, edits as patches (the format they are trained on). */
export const gpt = defineVariant({
  id: "gpt",
  description: "OpenAI GPT-5 and later, o-series, codex; native tools, apply_patch for edits.",
  priority: 50,
  match: [
    { families: ["gpt"], models: [/^gpt-([5-9]|\d{2,})/] },
    { families: ["o-series"] },
    { models: [/(^|\/)codex/] },
  ],
  toolCalling: "native",
  components: [...STANDARD_ORDER],
  tools: [...CORE_TOOLS, "apply_patch", ...SESSION_TOOLS, ...EXTRA_TOOLS],
  mcpTools: true,
  patches: {
    "tool-use": { append: `\n\n${BATCH}` },
    objective: { append: `\n\n${PERSIST}` },
  },
})
