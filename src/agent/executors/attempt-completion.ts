import { z } from "zod"
import { taskProgressArg } from "./args.js"
import { oneLine, success } from "./outcome.js"
import { defineExecutor } from "./types.js"

const schema = z.object({
  result: z.string({ error: "expected the result as a string" }).trim().min(1, "must not be empty"),
  command: z.string().trim().optional(),
  task_progress: taskProgressArg,
})

/** attempt_completion: reports the task as done; the loop shows the result and ends or waits for feedback. */
export const attemptCompletionExecutor = defineExecutor({
  id: "attempt_completion",
  schema,
  async run(input) {
    const command = input.command || undefined
    return success("The result was shown to the user.", `completed: ${oneLine(input.result)}`, {
      control: command
        ? { type: "completion", result: input.result, command }
        : { type: "completion", result: input.result },
    })
  },
})
