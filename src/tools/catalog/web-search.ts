import { defineTool } from "../spec.js"
import { ifTool, toolName } from "./mentions.js"
import { taskProgressParameter } from "./task-progress.js"

const domains = (what: string) => ({
  type: "array",
  items: { type: "string" },
  description: `${what} these domains.`,
})

/** web_search: searches the web. Needs the web tools feature. */
export const webSearch = defineTool({
  id: "web_search",
  kind: "web_search",
  snippet: "Search the web for pages about a query.",
  description:
    "Searches the web and returns the top results, each with its title, URL and an excerpt. Use it for facts " +
    "that are newer than your training or outside the project: current versions, error messages, release notes." +
    ifTool("fetch", ` Read a promising result in full with ${toolName("fetch")}.`),
  parameters: {
    query: {
      schema: { type: "string", description: "What to search for." },
      required: true,
      example: "vitest 4 breaking changes",
    },
    allowed_domains: { schema: domains("Only results from") },
    blocked_domains: { schema: domains("No results from") },
    task_progress: taskProgressParameter,
  },
  when: ({ context }) => context.features.webTools === true,
})
