import { defineComponent } from "../component.js"

const FEEDBACK = `# Feedback

When the user corrects you\${% if tools.by_kind.edit or tools.by_kind.write or tools.by_kind.execute %} or rejects something you did\${% endif %}\${% if tools.by_kind.ask %}, or answers a question\${% endif %}, treat it as the most important input: adjust the plan before the next step, and do not repeat an approach they rejected. If a tool call is denied, do not retry it unchanged; find another way or explain what you need.`

/** How to take a person's corrections; only when a person is there to give them. */
export const feedback = defineComponent(
  "feedback",
  (ctx, env) => {
    if (!ctx.interactive || ctx.audience === "subagent" || ctx.autonomy === "auto") return undefined
    if (env.tools.list.length === 0) return undefined
    return FEEDBACK
  },
  { reads: ["interactive", "audience", "autonomy"] },
)
