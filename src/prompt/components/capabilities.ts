import { defineComponent, tpl } from "../component.js"

// What the tools let the agent do together, beyond what each tool's own description says. Where to start
// exploring is said once, in the tool-use guidelines.
const CAPABILITIES = `# Capabilities

\${% if tools.by_kind.execute %}\${% if mode == "plan" %}- You can see how the project behaves now: run its tests and read-only commands with \${{ tools.by_kind.execute }}.\${% else %}- You can check your own work: build, test, lint and run the program with \${{ tools.by_kind.execute }}.\${% endif %}
\${% endif %}\${% if tools.by_kind.browse %}- You can look at a web page or app you built with \${{ tools.by_kind.browse }}VIEWPORT; start its server first.
\${% endif %}\${% if tools.by_kind.fetch or tools.by_kind.web_search %}- For a library or API you do not know, look up its documentation\${% if tools.by_kind.fetch %} with \${{ tools.by_kind.fetch }}\${% else %} with \${{ tools.by_kind.web_search }}\${% endif %} rather than guess.
\${% endif %}\${% if has_mcp %}- Connected MCP servers add tools of their own\${% if tools.by_kind.mcp_resource %}, and resources that are listed with the servers\${% endif %}.
\${% elsif tools.by_kind.mcp_resource %}- Connected MCP servers offer resources, listed with the servers.
\${% endif %}`

/** What the enabled tools let the agent do together, one line per capability. */
export const capabilities = defineComponent(
  "capabilities",
  (ctx, env) => {
    if (env.tools.list.length === 0) return undefined
    // The viewport is a validated pair of integers: it cannot carry template syntax.
    const size = ctx.browser?.viewport
    const viewport = size ? ` (a ${size.width}×${size.height} pixel viewport: click coordinates lie within it)` : ""
    return [tpl(CAPABILITIES.replace("VIEWPORT", viewport))]
  },
  { reads: ["browser"] },
)
