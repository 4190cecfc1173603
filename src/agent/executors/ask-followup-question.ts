import { z } from "zod"
import { stringListArg, taskProgressArg } from "./args.js"
import { failure, oneLine, success } from "./outcome.js"
import { defineExecutor } from "./types.js"

const schema = z.object({
  question: z.string({ error: "expected the question as a string" }).trim().min(1, "must not be empty"),
  options: stringListArg.optional(),
  task_progress: taskProgressArg,
})

/** ask_followup_question: asks the user through the host's `ask` callback; an error result when no one can answer. */
export const askFollowupQuestionExecutor = defineExecutor({
  id: "ask_followup_question",
  schema,
  async run(input, env) {
    const short = oneLine(input.question)
    const interactive = env.interactive ?? env.ask !== undefined
    if (!interactive || !env.ask) {
      return failure(
        "No one can answer questions in this session (it runs without a user at the terminal). " +
          "Make a reasonable assumption, say which one you made, and continue.",
        `asked "${short}": not interactive`,
      )
    }
    const options = input.options?.filter((o) => o.trim() !== "")
    let answer: string
    try {
      answer = await env.ask(input.question, options?.length ? options : undefined, env.signal)
    } catch (error) {
      return failure(`The question was not answered: ${(error as Error).message}`, `asked "${short}": no answer`)
    }
    return success(`<answer>\n${answer}\n</answer>`, `asked "${short}"`, { details: { answer } })
  },
})
