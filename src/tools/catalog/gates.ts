import type { GateInput } from "../spec.js"

/** True in act mode: tools that change files, and the completion tool, are hidden while planning. */
export function actMode({ context }: GateInput): boolean {
  return context.mode === "act"
}

/** True in plan mode. */
export function planMode({ context }: GateInput): boolean {
  return context.mode === "plan"
}

/** True when the agent talks to a person who can answer: not autonomous, interactive, not a subagent. */
export function userCanAnswer({ context }: GateInput): boolean {
  return context.autonomy === "ask" && context.interactive && context.audience === "primary"
}
