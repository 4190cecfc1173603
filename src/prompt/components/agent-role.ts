import { data, defineComponent, tpl } from "../component.js"

const PRIMARY =
  "You are ${{ agent.name }}, a software engineering agent. You work inside the user's project through tools: you read and search code, edit files and run commands to carry out the task you are given."

const SUBAGENT =
  "You are a subagent of ${{ agent.name }}. The main agent delegated one task to you: do it with your tools and report what you found or changed. Your report is read by the main agent, not by a person."

/** Who the agent is. Hosts brand their own agent with `agent.name` and `agent.identity`. */
export const agentRole = defineComponent(
  "agent-role",
  (ctx) => {
    if (ctx.audience === "subagent") return SUBAGENT
    // A host's identity line is its own text: inserted as data, never evaluated.
    if (ctx.agent.identity) return [data(ctx.agent.identity)]
    return [tpl(PRIMARY)]
  },
  { reads: ["audience", "agent"] },
)
