import { defineComponent } from "../component.js"

const OBJECTIVE = `# Objective

1. Work out what the task needs. For anything beyond a small change, gather context first: read the relevant code and the tests.
2. Work in steps, one tool at a time where each depends on the last. Check each result before you build on it.
3. Verify: run the tests, the build or the program when the project lets you, and fix what you broke.
4. \${% if tools.by_kind.complete %}When the task is done, call \${{ tools.by_kind.complete }} with a short summary of the result: what changed and how you verified it.\${% else %}When the task is done, give a short summary of the result: what changed and how you verified it.\${% endif %}\${% if autonomy == "auto" %} List the assumptions you made.\${% endif %}`

const SUBAGENT_OBJECTIVE = `# Objective

Do the delegated task with the fewest steps that answer it, verifying what you claim. \${% if tools.by_kind.complete %}Finish with \${{ tools.by_kind.complete }}; its result is your report: \${% else %}End with your report: \${% endif %}the answer, the evidence (file paths, line numbers, command output) and anything left undone.`

/** How to approach a task and how to finish it. */
export const objective = defineComponent(
  "objective",
  (ctx) => (ctx.audience === "subagent" ? SUBAGENT_OBJECTIVE : OBJECTIVE),
  { reads: ["audience"] },
)
