import { beforeAll, describe, expect, it } from "vitest"
import { loadToolSearchServers } from "../../test/fixtures/tool-search/load.js"
import { overheadOf, TokenCounter } from "../history/tokens.js"
import { PromptBuilder } from "../prompt/builder.js"
import { basicContext } from "../prompt/test-helpers/contexts.js"
import { renderXmlTool } from "../tools/xml.js"
import { renderText } from "./render-text.js"
import { inspectReport } from "./report.js"

let counter: TokenCounter
beforeAll(async () => {
  counter = await TokenCounter.create()
})

const builder = new PromptBuilder()
const servers = loadToolSearchServers()

describe("inspect: tool search", () => {
  it("lists the deferred tools with what each would cost loaded, and the tokens saved per request", () => {
    const context = basicContext({ mcpServers: servers })
    const built = builder.build(context)
    const r = inspectReport({ built, context, counter })
    const search = r.toolSearch!
    expect(search.deferred.map((t) => t.name)).toEqual(built.deferredTools.map((t) => t.name))
    const family = built.model.tokenizer
    const overhead = overheadOf("anthropic")
    const one = built.deferredTools[0]!
    expect(search.deferred[0]!.tokens).toBe(counter.countTools([one], family, overhead) - overhead.toolsPreamble)
    expect(search.deferredTokens).toBe(search.deferred.reduce((n, t) => n + t.tokens, 0))
    const standIns = r.tools.filter((t) => t.kind === "tool_search" || t.kind === "tool_call")
    expect(standIns).toHaveLength(2)
    expect(search.savedTokens).toBe(search.deferredTokens - standIns.reduce((n, t) => n + t.tokens, 0))
    expect(search.savedTokens).toBeGreaterThan(20_000)
    const text = renderText(r, { color: false, width: 100 })
    expect(text).toContain(`Deferred tools: ${search.deferred.length}, found and called through the search tools`)
    expect(text).toContain("MCP github/create_issue")
  })

  it("counts XML docs for the deferred tools in the XML dialect, and reports nothing when tool search is off", () => {
    const xml = basicContext({ mcpServers: servers, toolCalling: "xml" })
    const built = builder.build(xml)
    const r = inspectReport({ built, context: xml, counter })
    expect(r.toolSearch!.deferred[0]!.tokens).toBe(
      counter.countText(renderXmlTool(built.deferredTools[0]!), built.model.tokenizer),
    )
    const off = basicContext({ mcpServers: servers, tools: { search: { mode: "never" } } })
    expect(inspectReport({ built: builder.build(off), context: off, counter }).toolSearch).toBeUndefined()
  })
})
