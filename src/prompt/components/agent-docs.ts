import { data, defineComponent, tpl } from "../component.js"

/** Where the host's own documentation is, read only when the user asks about the agent itself. */
export const agentDocs = defineComponent(
  "agent-docs",
  (ctx, env) => {
    const docs = ctx.agent.docs ?? []
    if (docs.length === 0 || !env.tools.has("read")) return undefined
    return [
      tpl(
        "# About ${{ agent.name }}\n\nWhen the user asks about ${{ agent.name }} itself (its features, settings or extensions), read its documentation with ${{ tools.by_kind.read }} before answering:\n",
      ),
      data(docs.map((d) => `- ${d}`).join("\n")),
    ]
  },
  { reads: ["agent"] },
)
