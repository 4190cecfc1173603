import { defineComponent } from "../component.js"

const TASK_PROGRESS = `# Task progress

Keep a checklist of the task's steps in the \`task_progress\` parameter of your tool calls, in Markdown (\`- [ ] step\`, \`- [x] done\`). Write it when you start, tick items as you finish them, and add steps you discover. Include it whenever it changed; it shows the user where you are.`

/** How to keep the task-progress checklist; only when an enabled tool carries the parameter. */
export const taskProgress = defineComponent(
  "task-progress",
  (_ctx, env) => {
    if (!env.tools.list.some((t) => "task_progress" in t.parameters.properties)) return undefined
    return TASK_PROGRESS
  },
  { reads: [] },
)
