import type { ToolSet } from "../component.js"
import { data, defineComponent, tpl } from "../component.js"

/** What the enabled tools let the agent do, as a verb phrase ("read and search code, edit files and run commands"). */
export function workPhrase(tools: ToolSet): string | undefined {
  const explore = tools.has("search") || tools.has("list") || tools.has("definitions")
  const verbs: string[] = []
  if (tools.has("read") && explore) verbs.push("read and search code")
  else if (tools.has("read")) verbs.push("read code")
  else if (explore) verbs.push("search code")
  if (tools.has("edit") || tools.has("write")) verbs.push("edit files")
  if (tools.has("execute")) verbs.push("run commands")
  if (verbs.length === 0) return undefined
  return verbs.length === 1 ? verbs[0] : `${verbs.slice(0, -1).join(", ")} and ${verbs[verbs.length - 1]}`
}

/** True when the enabled tools can change the project: edit or write files, or run commands. */
export const canChange = (tools: ToolSet): boolean => tools.has("edit") || tools.has("write") || tools.has("execute")

/** Who the agent is. Hosts brand their own agent with `agent.name` and `agent.identity`. */
export const agentRole = defineComponent(
  "agent-role",
  (ctx, { tools }) => {
    const work = workPhrase(tools)
    if (ctx.audience === "subagent") {
      const how = tools.list.length > 0 ? " with your tools" : ""
      const what = tools.has("edit") || tools.has("write") ? "what you found or changed" : "what you found"
      return `You are a subagent of \${{ agent.name }}. The main agent delegated one task to you: do it${how} and report ${what}. Your report is read by the main agent, not by a person.`
    }
    // A host's identity line is its own text: inserted as data, never evaluated.
    if (ctx.agent.identity) return [data(ctx.agent.identity)]
    const body = work
      ? `You work inside the user's project through tools: you ${work} to carry out the task you are given.`
      : tools.list.length > 0
        ? "You work inside the user's project through the tools you are given."
        : "You have no tools in this session: you answer from what you know."
    return [tpl(`You are \${{ agent.name }}, a software engineering agent. ${body}`)]
  },
  { reads: ["audience", "agent"] },
)
