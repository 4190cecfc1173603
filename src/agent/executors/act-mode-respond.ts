import { z } from "zod"
import { taskProgressArg } from "./args.js"
import { oneLine, success } from "./outcome.js"
import { defineExecutor } from "./types.js"

const schema = z.object({
  response: z.string({ error: "expected the response as a string" }).trim().min(1, "must not be empty"),
  task_progress: taskProgressArg,
})

/** act_mode_respond: a progress message to the user in act mode; the loop shows it and goes on. */
export const actModeRespondExecutor = defineExecutor({
  id: "act_mode_respond",
  schema,
  async run(input) {
    return success("The message was shown to the user.", `said: ${oneLine(input.response)}`, {
      control: { type: "act_response", response: input.response },
    })
  },
})
