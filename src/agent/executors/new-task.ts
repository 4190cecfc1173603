import { z } from "zod"
import { taskProgressArg } from "./args.js"
import { oneLine, success } from "./outcome.js"
import { defineExecutor } from "./types.js"

const schema = z.object({
  context: z.string({ error: "expected the new task's context as a string" }).trim().min(1, "must not be empty"),
  task_progress: taskProgressArg,
})

/** new_task: asks the loop to start a fresh task seeded with the given context. */
export const newTaskExecutor = defineExecutor({
  id: "new_task",
  schema,
  async run(input) {
    return success("A new task will start with this context.", `new task: ${oneLine(input.context)}`, {
      control: { type: "new_task", context: input.context },
    })
  },
})
