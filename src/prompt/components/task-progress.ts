import { defineComponent } from "../component.js"

const TASK_PROGRESS = `# Task progress

Keep a checklist of the task's steps in the \`task_progress\` parameter of your tool calls, in Markdown (\`- [ ] step\`, \`- [x] done\`). \${% if mode == "plan" %}While planning, list what you explore; in the first call of act mode, write the full list of steps the plan needs.\${% else %}Write the full list in your first call, tick items as you finish them, and add steps you discover.\${% endif %} Include it whenever it changed, and do not mention updates to it in your text: it is shown on its own.\${% if tools.by_kind.complete %} Include the final list, every item ticked or marked as left out, in \${{ tools.by_kind.complete }}.\${% endif %}`

/** How to keep the task-progress checklist; only when an enabled tool carries the parameter. */
export const taskProgress = defineComponent(
  "task-progress",
  (_ctx, env) => {
    if (!env.tools.list.some((t) => "task_progress" in t.parameters.properties)) return undefined
    return TASK_PROGRESS
  },
  { reads: [] },
)
