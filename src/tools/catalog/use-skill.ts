import { defineTool } from "../spec.js"
import { taskProgressParameter } from "./task-progress.js"

/** use_skill: loads a listed skill's instructions. Needs at least one skill. */
export const useSkill = defineTool({
  id: "use_skill",
  kind: "skill",
  snippet: "Load the instructions of a listed skill.",
  description:
    "Loads the full instructions of one of the skills in the skills list. When a task matches a skill's " +
    "description, load the skill before starting and follow its instructions.",
  parameters: {
    skill_name: {
      schema: { type: "string", description: "The skill's name, exactly as listed." },
      required: true,
      example: "release-notes",
    },
    task_progress: taskProgressParameter,
  },
  when: ({ context }) => context.skills.length > 0,
})
