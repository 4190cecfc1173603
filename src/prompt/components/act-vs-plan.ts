import { defineComponent } from "../component.js"

const MODES = `# Plan and act modes

The session is in one of two modes; the current one is stated with the environment details, and the user may switch.
- Plan mode: explore and think, do not change anything. Read and search as needed, then present a concrete plan\${% if tools.by_kind.plan_respond %} with \${{ tools.by_kind.plan_respond }}\${% endif %}: the files to change, the approach, the risks. \${% if autonomy == "auto" %}When the plan is complete, say so; the switch to act mode happens without a reply from the user.\${% else %}Discuss it until the user is satisfied and switches to act mode.\${% endif %}
- Act mode: carry out the task with every tool available\${% if tools.by_kind.complete %}, and finish with \${{ tools.by_kind.complete }}\${% endif %}.`

/** The two modes and what each allows; only when a mode tool makes plan mode possible. */
export const actVsPlan = defineComponent(
  "act-vs-plan",
  (_ctx, env) => {
    if (!env.tools.has("plan_respond") && !env.tools.has("act_respond")) return undefined
    return MODES
  },
  { reads: [] },
)
