import { defineTool } from "../spec.js"
import { taskProgressParameter } from "./task-progress.js"

/** use_subagents: runs tasks in parallel subagents. Needs the subagents feature; never offered to a subagent. */
export const useSubagents = defineTool({
  id: "use_subagents",
  kind: "subagents",
  snippet: "Run independent tasks in parallel subagents and get their reports.",
  description:
    "Starts one subagent per task. They work in parallel, each with a fresh context and its own tools, and " +
    "each returns a report. Use them for independent work such as research across a large codebase, so your " +
    "own context stays small. Subagents see nothing of this conversation: make each task self-contained, " +
    "with the paths, names and the answer you need. Do not give two subagents changes to the same files.",
  parameters: {
    tasks: {
      schema: {
        type: "array",
        items: { type: "string" },
        description: "The tasks, one self-contained instruction per subagent.",
      },
      required: true,
      example: '["List the calls to fetchJson() in src/ with file:line.", "Explain how src/cache/ evicts entries."]',
    },
    task_progress: taskProgressParameter,
  },
  when: ({ context }) => context.features.subagents === true && context.audience === "primary",
})
