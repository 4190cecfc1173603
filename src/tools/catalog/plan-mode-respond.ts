import { defineTool } from "../spec.js"
import { planMode } from "./gates.js"
import { taskProgressParameter } from "./task-progress.js"

/** plan_mode_respond: the model's reply to the user in plan mode. Plan mode only. */
export const planModeRespond = defineTool({
  id: "plan_mode_respond",
  kind: "plan_respond",
  snippet: "Reply to the user in plan mode: findings, questions, the plan.",
  description:
    "Sends your reply to the user in plan mode: what you found, your questions, and the plan you propose. " +
    "Explore the code first so the plan rests on what is really there.",
  parameters: {
    response: {
      schema: { type: "string", description: "The reply, in markdown." },
      required: true,
      example:
        "Plan:\n1. Add a `retries` option to fetchJson() in src/http.ts (backoff on 429 and 5xx).\n" +
        "2. Test it in src/http.test.ts.",
    },
    needs_more_exploration: {
      schema: {
        type: "boolean",
        description: "true when you reply only to say you will explore further; you go on without waiting.",
      },
    },
    task_progress: taskProgressParameter,
  },
  when: planMode,
})
