import { defineTool } from "../spec.js"
import { actMode } from "./gates.js"
import { taskProgressParameter } from "./task-progress.js"

/** attempt_completion: ends the task and presents the result. Act mode only. */
export const attemptCompletion = defineTool({
  id: "attempt_completion",
  kind: "complete",
  snippet: "Finish the task and present the result.",
  // "the reader", not "the user": a subagent's result goes to the main agent, not to a person.
  description:
    "Ends the task and presents its result. Use it only when the work is done and your tool results have " +
    "confirmed it (files written, tests passing). Say briefly what was done and what the reader must know; do " +
    "not end with a question or an offer of more help.",
  parameters: {
    result: {
      schema: { type: "string", description: "What was done, in a few sentences or a short list." },
      required: true,
      example: "Fixed the off-by-one in paginate() and added a test for the last page. All tests pass.",
    },
    command: {
      schema: {
        type: "string",
        description: "A command that shows the result, such as opening a built page; not one that only prints text.",
      },
    },
    task_progress: taskProgressParameter,
  },
  when: actMode,
  variants: {
    compact: {
      description: "Ends the task and presents the result.",
      parameters: {
        result: {
          schema: { type: "string", description: "What was done, briefly." },
          required: true,
          example: "Fixed the off-by-one in paginate(); tests pass.",
        },
        command: null,
        task_progress: null,
      },
    },
  },
})
