import { defineTool } from "../spec.js"
import { ifTool, toolName } from "./mentions.js"
import { taskProgressParameter } from "./task-progress.js"

/** web_fetch: fetches a URL as markdown. Needs the web tools feature. */
export const webFetch = defineTool({
  id: "web_fetch",
  kind: "fetch",
  snippet: "Fetch a web page as markdown.",
  description:
    "Fetches a URL and returns its content as markdown. With a prompt, you get what the page says about the " +
    "prompt instead of the whole page. Use it to read documentation, issues and pages the user points to" +
    ifTool("web_search", ` or that ${toolName("web_search")} found`) +
    ". Only http and https URLs.",
  parameters: {
    url: {
      schema: { type: "string", description: "The address to fetch." },
      required: true,
      example: "https://nodejs.org/api/fs.html",
    },
    prompt: {
      schema: { type: "string", description: "What to extract from the page, such as a question it answers." },
    },
    task_progress: taskProgressParameter,
  },
  when: ({ context }) => context.features.webTools === true,
})
