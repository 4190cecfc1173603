import { STANDARD_ORDER } from "../components/index.js"
import { defineVariant } from "../variant.js"
import { CORE_TOOLS, EXTRA_TOOLS, SESSION_TOOLS } from "./tool-sets.js"

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
})
