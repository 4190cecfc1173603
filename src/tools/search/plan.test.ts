import { describe, expect, it } from "vitest"
import { loadToolSearchServers, toolSearchContext } from "../../../test/fixtures/tool-search/load.js"
import type { PromptContext, PromptContextInput } from "../../context/prompt-context.js"
import { build, PromptBuilder } from "../../prompt/builder.js"
import { BUILTIN_TOOLS } from "../catalog/index.js"
import { defineTool } from "../spec.js"
import { CALL_TOOL_NAME, SEARCH_TOOLS_NAME } from "./fixed-tools.js"
import { estimateDefinitionTokens } from "./plan.js"

const servers = loadToolSearchServers()

function context(overrides: Partial<PromptContextInput> = {}): PromptContext {
  return toolSearchContext({ mcpServers: servers, ...overrides })
}

const names = (tools: { name: string }[]) => tools.map((t) => t.name)

describe("tool search selection", () => {
  it("defers every MCP tool when the definitions exceed 10% of the window, and adds the two search tools last", () => {
    const built = build(context())
    expect(built.deferredTools).toHaveLength(456)
    expect(built.deferredTools.every((t) => t.kind === "mcp")).toBe(true)
    expect(names(built.tools).slice(-2)).toEqual([SEARCH_TOOLS_NAME, CALL_TOOL_NAME])
    expect(built.tools.some((t) => t.kind === "mcp")).toBe(false)
    // The search tool says what it searches: how many tools, from which servers.
    expect(built.tools.at(-2)!.description).toContain(
      "456 tools from the MCP servers brave-search, chrome-devtools, circleci",
    )
    expect(built.diagnostics.map((d) => d.code)).toContain("tools-deferred")
  })

  it("leaves the tools alone below the threshold, and defers them above it (threshold in tokens or as a share)", () => {
    const small = context({ mcpServers: servers.filter((s) => s.name === "brave-search") })
    expect(build(small).deferredTools).toEqual([])
    expect(names(build(small).tools)).toContain("mcp__brave-search__brave_web_search")
    const total = build(context({ tools: { search: { mode: "never" } } })).tools.reduce(
      (sum, t) => sum + estimateDefinitionTokens(t),
      0,
    )
    expect(build(context({ tools: { search: { threshold: total } } })).deferredTools).toEqual([])
    expect(build(context({ tools: { search: { threshold: total - 1 } } })).deferredTools).toHaveLength(456)
    expect(build(context({ tools: { search: { threshold: 0.9 } } })).deferredTools).toEqual([])
    expect(build(context({ ...small, tools: { search: { mode: "always" } } })).deferredTools).toHaveLength(2)
  })

  it("mode never keeps every tool loaded and adds no search tools", () => {
    const built = build(context({ tools: { search: { mode: "never" } } }))
    expect(built.deferredTools).toEqual([])
    expect(names(built.tools)).not.toContain(SEARCH_TOOLS_NAME)
    expect(built.tools.filter((t) => t.kind === "mcp")).toHaveLength(456)
  })

  it("a pinned tool stays loaded; a built-in tool can be made deferrable by the context", () => {
    const pinned = "mcp__github__create_issue"
    const built = build(
      context({ features: { webTools: true }, tools: { search: { pin: [pinned], defer: ["web_fetch"] } } }),
    )
    expect(names(built.tools)).toContain(pinned)
    expect(names(built.deferredTools)).not.toContain(pinned)
    expect(names(built.deferredTools)).toContain("web_fetch")
    expect(names(built.tools)).not.toContain("web_fetch")
  })

  it("a spec opts in with defer: true and pins itself with defer: false", () => {
    const optIn = defineTool({ ...BUILTIN_TOOLS.find((t) => t.id === "list_files")!, defer: true })
    const builder = new PromptBuilder({ tools: BUILTIN_TOOLS.map((t) => (t.id === "list_files" ? optIn : t)) })
    expect(names(builder.build(context()).deferredTools)).toContain("list_files")
    // A spec of kind mcp is deferrable by default; defer: false pins it.
    const base = { kind: "mcp" as const, description: "Posts a note.", snippet: "Post a note", parameters: {} }
    const pinnedSpec = defineTool({ ...base, id: "post_note", defer: false })
    const loose = defineTool({ ...base, id: "post_memo" })
    const pinning = new PromptBuilder({ tools: [...BUILTIN_TOOLS, pinnedSpec, loose] })
    const built = pinning.build(context({ tools: { include: ["post_note", "post_memo"] } }))
    expect(names(built.tools)).toContain("post_note")
    expect(names(built.deferredTools)).toContain("post_memo")
    // An MCP spec pinned through the context list behaves as defer: false.
    const b = build(context({ tools: { search: { pin: ["mcp__slack__slack_post_message"] } } }))
    expect(names(b.tools)).toContain("mcp__slack__slack_post_message")
  })

  it("the tool list and the prefix hash are the same on every turn (new date, new mode text, resumed builder)", () => {
    const builder = new PromptBuilder()
    const first = builder.build(context())
    const later = builder.build({ ...context(), date: "2026-12-02" })
    const fresh = new PromptBuilder().build(context())
    expect(names(later.tools)).toEqual(names(first.tools))
    expect(later.nativeTools).toEqual(first.nativeTools)
    expect(fresh.hash).toBe(first.hash)
    expect(JSON.stringify(fresh.nativeTools)).toBe(JSON.stringify(first.nativeTools))
  })

  it("the XML dialect documents the two search tools and none of the deferred ones", () => {
    const built = build(context({ toolCalling: "xml" }))
    expect(built.text).toContain(`### ${SEARCH_TOOLS_NAME}`)
    expect(built.text).toContain(`### ${CALL_TOOL_NAME}`)
    expect(built.text).not.toContain("mcp__github__create_issue")
  })

  it("turns itself off with an error when a loaded tool already has a search tool's name", () => {
    const built = build(context({ tools: { rename: { list_files: SEARCH_TOOLS_NAME } } }))
    expect(built.deferredTools).toEqual([])
    expect(built.diagnostics.map((d) => d.code)).toContain("tool-search-name-taken")
  })
})
