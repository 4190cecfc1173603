import { renderXmlToolDocs, XML_CALL_FORMAT } from "../../tools/xml.js"
import { data, defineComponent, type Fragment, tpl } from "../component.js"
import { guidelinesFor } from "../guidelines.js"

const XML_INTRO = `# Tool use

You act by calling tools. Write at most one call per message, at its end, then stop and wait for its result. Never guess a result; decide your next step from what the tool returned.

`

const NATIVE_FORMAT = `# Tool use

You act by calling the tools you were given. Call independent tools together when you can; a call that needs another call's result waits for it. Never guess a result; decide your next step from what the tools returned.`

const NO_TOOLS = "# Tool use\n\nNo tools are available: answer from what you know and say what you could not check."

/** How to call tools, the tools themselves (XML dialect), and guidelines derived from the tool set. */
export const toolUse = defineComponent(
  "tool-use",
  (ctx, env) => {
    const parts: Fragment[] = []
    // Without tools there is nothing to call, in either dialect: saying how to call one would be false.
    if (env.tools.list.length === 0) return [tpl(NO_TOOLS)]
    if (env.toolCalling === "xml") {
      parts.push(
        tpl(XML_INTRO),
        data(XML_CALL_FORMAT),
        tpl("\n\n## Tools\n\n"),
        data(renderXmlToolDocs(env.tools.list, { format: false, labels: !env.brief })),
      )
    } else parts.push(tpl(NATIVE_FORMAT))
    const guidelines = guidelinesFor(ctx, env)
    // Guidelines are final text (derived ones are built from tool names, tool ones were rendered during selection).
    if (guidelines.length > 0)
      parts.push(tpl("\n\n## Guidelines\n\n"), data(guidelines.map((g) => `- ${g}`).join("\n")))
    return parts
  },
  { reads: [] },
)
