import { defineComponent } from "../component.js"

const FEEDBACK = `# Feedback

When the user corrects you, rejects a change or answers a question, treat it as the most important input: adjust the plan before the next step, and do not repeat an approach they rejected. If a tool call is denied, do not retry it unchanged; find another way or explain what you need.`

/** How to take a person's corrections; only when a person is there to give them. */
export const feedback = defineComponent(
  "feedback",
  (ctx) => {
    if (!ctx.interactive || ctx.audience === "subagent" || ctx.autonomy === "auto") return undefined
    return FEEDBACK
  },
  { reads: ["interactive", "audience", "autonomy"] },
)
