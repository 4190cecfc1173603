import { defineTool } from "../spec.js"
import { userCanAnswer } from "./gates.js"
import { taskProgressParameter } from "./task-progress.js"

/**
 * ask_followup_question: asks the user and waits for the answer. Only when a person can answer:
 * hidden when autonomous, when not interactive, and for subagents.
 */
export const askFollowupQuestion = defineTool({
  id: "ask_followup_question",
  kind: "ask",
  snippet: "Ask the user a question and wait for the answer.",
  description:
    "Asks the user a question and waits for the answer. Use it when the task cannot go on without something " +
    "only the user knows: what an ambiguous request means, a choice between approaches with real trade-offs, " +
    "a missing value or preference. Find out what your tools can tell you instead of asking. Ask one clear " +
    "question; options let the user answer in one step.",
  parameters: {
    question: {
      schema: { type: "string", description: "The question." },
      required: true,
      example: "Should the new endpoint require authentication?",
    },
    options: {
      schema: {
        type: "array",
        items: { type: "string" },
        description: "Two to five likely answers to choose from. Leave it out for an open question.",
      },
      example: '["Yes, like the other endpoints", "No, it is public"]',
    },
    task_progress: taskProgressParameter,
  },
  when: userCanAnswer,
})
