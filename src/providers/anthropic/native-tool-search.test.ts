import { describe, expect, it } from "vitest"
import { toolSearchContext } from "../../../test/fixtures/tool-search/load.js"
import { text } from "../../history/message.js"
import { build } from "../../prompt/builder.js"
import { ANTHROPIC_TOOL_SEARCH, encodeAnthropic } from "./encode.js"

const built = build(toolSearchContext())
const messages = [{ id: "u1", role: "user" as const, content: [text("Open an issue about the crash.")], ts: 0 }]

describe("Anthropic native tool search (nativeToolSearch)", () => {
  it("sends the deferred tools with defer_loading, then the loaded tools, then the BM25 tool search tool", () => {
    const { body } = encodeAnthropic({
      prompt: built,
      messages,
      model: built.model,
      options: { nativeToolSearch: true, cache: { breakpoints: { tools: true } } },
    })
    const tools = body.tools as { name: string; defer_loading?: boolean; type?: string; cache_control?: unknown }[]
    const deferred = tools.filter((t) => t.defer_loading === true)
    expect(deferred.map((t) => t.name)).toEqual(built.deferredTools.map((t) => t.name))
    expect(tools.slice(0, deferred.length)).toEqual(deferred)
    expect(tools.at(-1)).toMatchObject(ANTHROPIC_TOOL_SEARCH)
    const names = tools.map((t) => t.name)
    expect(names).not.toContain("search_tools")
    expect(names).not.toContain("call_tool")
    for (const loaded of built.tools.filter((t) => t.kind !== "tool_search" && t.kind !== "tool_call"))
      expect(names).toContain(loaded.name)
    // A deferred tool keeps its full definition for the server's search.
    const issue = tools.find((t) => t.name === "mcp__github__create_issue") as { input_schema?: unknown }
    expect(issue.input_schema).toEqual(
      built.deferredTools.find((t) => t.name === "mcp__github__create_issue")!.parameters,
    )
    // The tools breakpoint lands on the last tool, a loaded one, never on a deferred tool.
    expect(tools.at(-1)!.cache_control).toBeDefined()
    expect(deferred.some((t) => t.cache_control !== undefined)).toBe(false)
  })

  it("without the option (or without deferred tools) sends promptline's own search and call tools", () => {
    const { body } = encodeAnthropic({ prompt: built, messages, model: built.model })
    const names = (body.tools as { name: string }[]).map((t) => t.name)
    expect(names.slice(-2)).toEqual(["search_tools", "call_tool"])
    expect(JSON.stringify(body.tools)).not.toContain("defer_loading")
    const none = encodeAnthropic({
      prompt: { ...built, deferredTools: [] },
      messages,
      model: built.model,
      options: { nativeToolSearch: true },
    })
    expect(JSON.stringify(none.body.tools)).not.toContain("tool_search_tool_bm25")
  })
})
