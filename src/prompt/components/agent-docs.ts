import { data, defineComponent, type Fragment, tpl } from "../component.js"

const isUrl = (doc: string): boolean => /^https?:\/\//i.test(doc)

/**
 * Where the host's own documentation is, read only when the user asks about the agent itself. Files are
 * read with the read tool and web pages fetched with the fetch tool; a doc no enabled tool can open is left out.
 */
export const agentDocs = defineComponent(
  "agent-docs",
  (ctx, env) => {
    const docs = ctx.agent.docs ?? []
    const files = env.tools.has("read") ? docs.filter((d) => !isUrl(d)) : []
    const pages = env.tools.has("fetch") ? docs.filter(isUrl) : []
    if (files.length === 0 && pages.length === 0) return undefined
    const how = [
      files.length > 0 ? "read the files with ${{ tools.by_kind.read }}" : "",
      pages.length > 0 ? "fetch the web pages with ${{ tools.by_kind.fetch }}" : "",
    ]
      .filter(Boolean)
      .join(" and ")
    const parts: Fragment[] = [
      tpl(
        `# About \${{ agent.name }}\n\nWhen the user asks about \${{ agent.name }} itself (its features, settings or extensions), read its documentation before answering (${how}):\n`,
      ),
      data([...files, ...pages].map((d) => `- ${d}`).join("\n")),
    ]
    return parts
  },
  { reads: ["agent"] },
)
