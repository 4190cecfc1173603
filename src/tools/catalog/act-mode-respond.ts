import { defineTool } from "../spec.js"
import { actMode } from "./gates.js"
import { ifTool, toolName } from "./mentions.js"
import { taskProgressParameter } from "./task-progress.js"

/** act_mode_respond: a progress message to the user that does not stop the work. Act mode only. */
export const actModeRespond = defineTool({
  id: "act_mode_respond",
  kind: "act_respond",
  snippet: "Tell the user something in act mode and keep working.",
  description:
    "Sends a short message to the user while you keep working: progress on a long task, a finding worth " +
    "knowing, a change of approach. It neither ends the task nor waits for a reply; do not call it twice in " +
    "a row." +
    ifTool("complete", ` Finish with ${toolName("complete")}.`) +
    ifTool("ask", ` To get an answer, use ${toolName("ask")}.`),
  parameters: {
    response: {
      schema: { type: "string", description: "The message, in markdown." },
      required: true,
      example: "The failing test was a timezone bug in formatDate(); fixed. Now updating the callers.",
    },
    task_progress: taskProgressParameter,
  },
  when: actMode,
})
