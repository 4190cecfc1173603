import { z } from "zod"
import { stringListArg, taskProgressArg } from "./args.js"
import { count, failure, oneLine, success } from "./outcome.js"
import { defineExecutor } from "./types.js"

const schema = z.object({
  query: z.string({ error: "expected the query as a string" }).trim().min(1, "must not be empty"),
  allowed_domains: stringListArg.optional(),
  blocked_domains: stringListArg.optional(),
  task_progress: taskProgressArg,
})

/** web_search: asks the host's search provider and lists the hits; an error result when there is none. */
export const webSearchExecutor = defineExecutor({
  id: "web_search",
  schema,
  async run(input, env) {
    const short = oneLine(input.query)
    if (!env.search) {
      return failure(
        "Web search is not configured in this session. Use what you know, or web_fetch a page whose URL you know.",
        `search "${short}": not configured`,
      )
    }
    let hits: Awaited<ReturnType<NonNullable<typeof env.search>["search"]>>
    try {
      hits = await env.search.search(
        { query: input.query, allowedDomains: input.allowed_domains, blockedDomains: input.blocked_domains },
        { signal: env.signal },
      )
    } catch (error) {
      return failure(`The web search failed: ${(error as Error).message}`, `search "${short}": failed`)
    }
    if (hits.length === 0) return success(`No results for "${input.query}".`, `searched "${short}" (no results)`)
    const lines = hits.map((hit, i) => {
      const snippet = hit.snippet ? `\n   ${oneLine(hit.snippet, 300)}` : ""
      return `${i + 1}. ${hit.title}\n   ${hit.url}${snippet}`
    })
    return success(
      `Results for "${input.query}":\n\n${lines.join("\n\n")}`,
      `searched "${short}" (${count(hits.length, "result")})`,
    )
  },
})
