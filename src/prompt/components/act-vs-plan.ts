import { defineComponent } from "../component.js"

// Who switches the mode, and what happens to a plan, depends on whether a person is there (a subagent's
// plan goes to the main agent).
const MODES = `# Plan and act modes

The session is in plan mode or act mode; the current one is stated with the environment details\${% if interactive and audience == "primary" %}, and the user switches between them\${% else %}, and it changes only when the host switches it\${% endif %}.
- Plan mode: explore and think, and change nothing\${% if tools.by_kind.execute %}: run only commands that read\${% endif %}. Then present a concrete plan\${% if tools.by_kind.plan_respond %} with \${{ tools.by_kind.plan_respond }}\${% endif %}: the files to change, the approach, how to verify it, the risks. \${% if interactive == false or audience == "subagent" %}Nobody will discuss it with you: give the complete plan in one reply, with your assumptions.\${% elsif autonomy == "auto" %}Give it complete, without questions; the user decides when to switch to act mode.\${% else %}Discuss it until the user is satisfied and switches to act mode.\${% endif %}
- Act mode: carry out the task\${% if tools.by_kind.complete %}, and finish with \${{ tools.by_kind.complete }}\${% endif %}.`

/** The two modes and what each allows; only when a mode tool makes plan mode possible. */
export const actVsPlan = defineComponent(
  "act-vs-plan",
  (_ctx, env) => {
    if (!env.tools.has("plan_respond") && !env.tools.has("act_respond")) return undefined
    return MODES
  },
  { reads: [] },
)
