import type { GateInput, ParameterSpec } from "../spec.js"

/** True when the context turns the task progress checklist on for an agent a person watches (not a subagent). */
export function taskProgressOn({ context }: GateInput): boolean {
  return context.features.taskProgress === true && context.audience === "primary"
}

/**
 * The optional `task_progress` parameter many tools carry: the task's checklist, updated with each call.
 * Shown only when the task progress feature is on.
 */
export const taskProgressParameter: ParameterSpec = {
  schema: {
    type: "string",
    description: "Your updated task checklist.",
  },
  when: taskProgressOn,
}
