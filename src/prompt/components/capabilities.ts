import { defineComponent } from "../component.js"

const CAPABILITIES = `# Capabilities

\${% if tools.by_kind.list %}- \${{ tools.by_kind.list }} shows the project's layout; start there when the structure is new to you.
\${% endif %}\${% if tools.by_kind.search %}- \${{ tools.by_kind.search }} finds code by regular expression across many files at once.
\${% endif %}\${% if tools.by_kind.execute %}- \${{ tools.by_kind.execute }} runs shell commands: builds, tests, linters, git, package managers. Prefer commands that finish on their own; pass flags that avoid interactive prompts and pagers.
\${% endif %}\${% if tools.by_kind.browse %}- \${{ tools.by_kind.browse }} drives a browser to check a web page or app you built, through screenshots and console output.
\${% endif %}\${% if tools.by_kind.fetch %}- \${{ tools.by_kind.fetch }} reads a web page\${% if tools.by_kind.web_search %} and \${{ tools.by_kind.web_search }} searches the web\${% endif %}: use them for documentation you do not know.
\${% endif %}\${% if has_mcp %}- Connected MCP servers extend what you can do: their tools are listed with the other tools, their resources with the servers.
\${% endif %}`

/** What the enabled tools let the agent do, one line per capability. */
export const capabilities = defineComponent(
  "capabilities",
  (_ctx, env) => {
    if (env.tools.list.length === 0) return undefined
    return CAPABILITIES
  },
  { reads: [] },
)
