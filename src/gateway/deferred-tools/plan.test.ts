/** What an upstream without tool search is offered of a client's deferred tools, read from real client bodies. */
import { describe, expect, it } from "vitest"
import { decodeAnthropicRequest } from "../../providers/anthropic/request-decode.js"
import { PLACEHOLDER_DESCRIPTION } from "../../providers/test-helpers/client-bodies.js"
import { SEARCH_TOOLS_NAME } from "../../tools/search/index.js"
import { planDeferredTools } from "./plan.js"
import { BASH, deferredToolList, fixtureTools } from "./test-helpers.js"

const names = (tools: readonly { name: string }[] | undefined) => (tools ?? []).map((t) => t.name)
const user = (content: unknown) => ({ role: "user", content })

/** A request as Claude Code sends it with tool search on: its own ToolSearch tool, the tools it found, the placeholder. */
function claudeCode(messages: unknown[]) {
  const [a, b, c] = fixtureTools().filter((t) => t.name.startsWith("mcp__github__create"))
  const search = { name: "ToolSearch", description: "Fetches deferred tools.", input_schema: { type: "object" } }
  return decodeAnthropicRequest({
    model: "claude-sonnet-4-5",
    max_tokens: 1000,
    messages,
    tools: [
      BASH,
      search,
      ...[a, b, c].map((t) => ({ ...t, defer_loading: true })),
      { ...BASH, name: "DeferredPlaceholder", description: PLACEHOLDER_DESCRIPTION, defer_loading: true },
    ],
  })
}

describe("planDeferredTools", () => {
  it("leaves a request without deferred tools as it is", () => {
    const req = decodeAnthropicRequest({ model: "m", max_tokens: 10, tools: [BASH], messages: [user("hi")] })
    expect(planDeferredTools(req, "search")).toBeUndefined()
    expect(planDeferredTools(req, "send-all")).toBeUndefined()
  })

  it("search: offers the loaded tools and promptline's search tool, which the gateway answers as the client's", () => {
    const plan = planDeferredTools(
      decodeAnthropicRequest({ model: "m", max_tokens: 10, tools: deferredToolList(), messages: [user("hi")] }),
      "search",
    )!
    expect(names(plan.request.prompt.tools)).toEqual(["Bash", SEARCH_TOOLS_NAME])
    expect(plan.request.prompt.deferredTools).toBeUndefined()
    expect(plan.request.options.nativeToolSearch).toBeUndefined()
    expect(plan.search?.clientName).toBe("tool_search_tool_bm25")
    expect(plan.search?.index.tools).toHaveLength(fixtureTools().length)
    expect(plan.search?.tool.description).toContain(`${fixtureTools().length} more tools`)
    // Nothing of the client's request is left unreachable: no deferred tool nor the search is named as dropped.
    expect(plan.dropped).toEqual([])
    expect(plan.request.sources.deferredTools).toBeUndefined()
    expect(plan.request.sources.nativeToolSearch).toBeUndefined()
  })

  it("search: the tools a search found earlier in the conversation are loaded, in the client's order", () => {
    const messages = [
      user("Open an issue."),
      {
        role: "assistant",
        content: [
          { type: "server_tool_use", id: "srvtoolu_1", name: "tool_search_tool_bm25", input: { query: "issue" } },
          {
            type: "tool_search_tool_result",
            tool_use_id: "srvtoolu_1",
            content: {
              type: "tool_search_tool_search_result",
              tool_references: [
                { type: "tool_reference", tool_name: "mcp__github__list_issues" },
                { type: "tool_reference", tool_name: "mcp__github__create_issue" },
              ],
            },
          },
        ],
      },
      user("Go on."),
    ]
    const req = decodeAnthropicRequest({ model: "m", max_tokens: 10, tools: deferredToolList(), messages })
    expect(req.unmodeled).toEqual([])
    const plan = planDeferredTools(req, "search")!
    expect(names(plan.request.prompt.tools)).toEqual([
      "Bash",
      "mcp__github__create_issue",
      "mcp__github__list_issues",
      SEARCH_TOOLS_NAME,
    ])
    expect(plan.loaded).toEqual(["mcp__github__create_issue", "mcp__github__list_issues"])
  })

  it("search, a client that searches itself (Claude Code): the tools its results reference are loaded, no search added", () => {
    const plan = planDeferredTools(
      claudeCode([
        user("Open an issue."),
        { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "ToolSearch", input: { query: "issue" } }] },
        user([
          {
            type: "tool_result",
            tool_use_id: "t1",
            content: [{ type: "tool_reference", tool_name: "mcp__github__create_issue" }],
          },
        ]),
      ]),
      "search",
    )!
    expect(plan.search).toBeUndefined()
    expect(names(plan.request.prompt.tools)).toEqual(["Bash", "ToolSearch", "mcp__github__create_issue"])
    // The placeholder is never offered, and is named as dropped.
    expect(plan.request.prompt.deferredTools).toBeUndefined()
    expect(plan.dropped).toEqual(["tools[5]"])
  })

  it("send-all: every deferred tool but the placeholder, as ordinary tools, no search", () => {
    const plan = planDeferredTools(claudeCode([user("hi")]), "send-all")!
    expect(plan.search).toBeUndefined()
    expect(names(plan.request.prompt.tools)).toEqual([
      "Bash",
      "ToolSearch",
      "mcp__github__create_or_update_file",
      "mcp__github__create_repository",
      "mcp__github__create_issue",
    ])
  })

  it("no search when the client has a tool of the search tool's name: a warning, and the tools named as dropped", () => {
    const own = { ...BASH, name: SEARCH_TOOLS_NAME }
    const plan = planDeferredTools(
      decodeAnthropicRequest({ model: "m", max_tokens: 10, tools: deferredToolList([own]), messages: [user("hi")] }),
      "search",
    )!
    expect(plan.search).toBeUndefined()
    expect(names(plan.request.prompt.tools)).toEqual([SEARCH_TOOLS_NAME])
    expect(plan.diagnostics.map((d) => d.code)).toEqual(["tool-search-name-taken"])
    // The search the client asked for is named as dropped with why, then each tool it would have reached.
    expect(plan.dropped).toHaveLength(fixtureTools().length + 1)
    expect(plan.dropped[0]).toBe(`tools[1] (${plan.diagnostics[0]!.message})`)
    expect(plan.dropped[1]).toBe("tools[2]")
  })
})
