import { z } from "zod"
import { booleanArg, taskProgressArg } from "./args.js"
import { oneLine, success } from "./outcome.js"
import { defineExecutor } from "./types.js"

const schema = z.object({
  response: z.string({ error: "expected the response as a string" }).trim().min(1, "must not be empty"),
  needs_more_exploration: booleanArg.optional(),
  task_progress: taskProgressArg,
})

/** plan_mode_respond: hands the plan-mode answer to the loop, which shows it and waits for the user. */
export const planModeRespondExecutor = defineExecutor({
  id: "plan_mode_respond",
  schema,
  async run(input) {
    const more = input.needs_more_exploration ?? false
    return success(
      more ? "The response was shown to the user; continue exploring." : "The response was shown to the user.",
      `plan: ${oneLine(input.response)}`,
      { control: { type: "plan_response", response: input.response, needsMoreExploration: more } },
    )
  },
})
