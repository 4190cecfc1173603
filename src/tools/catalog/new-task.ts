import { defineTool } from "../spec.js"

/** new_task: hands the work over to a fresh task with a written handover. Hidden when autonomous, for subagents. */
export const newTask = defineTool({
  id: "new_task",
  kind: "new_task",
  snippet: "Continue the work in a fresh task, starting from a handover you write.",
  description:
    "Ends this task and starts a new one whose only history is the context you write, so long work can go " +
    "on without the weight of this conversation. Use it when the user asks for it or agrees to it. The " +
    "context must be enough on its own: the goal, what is done, the current state and the files involved, " +
    "decisions and why they were made, and the next steps.",
  parameters: {
    context: {
      schema: { type: "string", description: "The handover, in markdown." },
      required: true,
      example:
        "## Goal\nCSV export on the report page.\n## Done\n- toCsv() in src/report/csv.ts, tested.\n" +
        "## Next\n- An Export button in src/report/page.tsx.",
    },
  },
  when: ({ context }) => context.autonomy === "ask" && context.audience === "primary",
})
