import { beforeAll, describe, expect, it } from "vitest"
import type { PromptContext } from "../context/prompt-context.js"
import { TokenCounter } from "../history/tokens.js"
import { PromptBuilder } from "../prompt/builder.js"
import { basicContext } from "../prompt/test-helpers/contexts.js"
import { diffBuilds, unifiedDiff } from "./build-diff.js"
import { renderDiff } from "./render-diff.js"
import { inspectReport } from "./report.js"
import { withModel } from "./with-model.js"

let counter: TokenCounter
const builder = new PromptBuilder()
beforeAll(async () => {
  counter = await TokenCounter.create()
})
const report = (context: PromptContext) => inspectReport({ built: builder.build(context), context, counter })

describe("unifiedDiff", () => {
  it("gives hunks with context lines and no file headers", () => {
    const patch = unifiedDiff("a\nb\nc\nd", "a\nB\nc\nd", 1)
    expect(patch).toBe("@@ -1,3 +1,3 @@\n a\n-b\n+B\n c")
  })
})

describe("diffBuilds", () => {
  it("two equal builds: everything unchanged, same prefix, zero deltas", () => {
    const diff = diffBuilds(report(basicContext()), report(basicContext()))
    expect(diff.samePrefix).toBe(true)
    expect(diff.sections.every((s) => s.status === "unchanged" && s.delta === 0)).toBe(true)
    expect(diff.tools.every((t) => t.status === "unchanged")).toBe(true)
    expect(diff.delta).toEqual({ system: 0, contextMessage: 0, tools: 0, total: 0 })
  })

  it("claude against gpt-5: the edit tool swaps, sections change with line diffs, deltas add up", () => {
    const a = report(basicContext())
    const b = report(withModel(basicContext(), "gpt-5"))
    const diff = diffBuilds(a, b)
    expect(diff.a.model).toBe("claude-sonnet-4-5")
    expect(diff.b.model).toBe("gpt-5")
    expect(diff.samePrefix).toBe(false)
    expect(diff.sameTokenizer).toBe(false)
    const tool = (name: string) => diff.tools.find((t) => t.name === name)
    expect(tool("apply_patch")?.status).toBe("added")
    expect(tool("replace_in_file")?.status).toBe("removed")
    const sectionSum = (r: typeof a) => r.sections.reduce((n, s) => n + s.tokens, 0)
    expect(diff.sections.reduce((n, s) => n + s.delta, 0)).toBe(sectionSum(b) - sectionSum(a))
    expect(diff.tools.reduce((n, t) => n + t.delta, 0)).toBe(
      b.tools.reduce((n, t) => n + t.tokens, 0) - a.tools.reduce((n, t) => n + t.tokens, 0),
    )
    expect(diff.delta.total).toBe(b.totals.total - a.totals.total)
    for (const s of diff.sections) {
      if (s.status === "changed" && s.before!.text !== s.after!.text)
        expect(s.patch).toMatch(/^@@ -\d+,\d+ \+\d+,\d+ @@/)
      if (s.status === "unchanged") expect(s.patch).toBeUndefined()
    }
  })

  it("sections added and removed: a custom prompt and no MCP servers", () => {
    const a = report(basicContext())
    const b = report(basicContext({ mcpServers: [], customPrompt: { mode: "append", text: "Be brief." } }))
    const diff = diffBuilds(a, b, ["before", "after"])
    const status = Object.fromEntries(diff.sections.map((s) => [s.id, s.status]))
    expect(status["custom-prompt"]).toBe("added")
    expect(status["mcp-servers"]).toBe("removed")
    expect(diff.tools.find((t) => t.name === "mcp__tracker__get_issue")?.status).toBe("removed")
    // Order: the added section sits where b has it, the removed one where a had it.
    const ids = diff.sections.map((s) => s.id)
    expect(ids.indexOf("custom-prompt")).toBeLessThan(ids.indexOf("skills"))
    expect(ids.indexOf("mcp-servers")).toBeLessThan(ids.indexOf("skills"))
    const text = renderDiff(diff)
    expect(text).toContain("a: before")
    expect(text).toMatch(/\+ custom-prompt +— → \d+/)
    expect(text).toMatch(/- mcp-servers +\d+ → —/)
    expect(text).toContain("- mcp__tracker__get_issue")
  })

  it("a tool whose description or parameters changed is 'changed', saying what changed", () => {
    const a = report(basicContext())
    const b = structuredClone(a)
    b.tools[0]!.description += " Mind the timeout."
    b.tools[1]!.parameters = { ...b.tools[1]!.parameters, required: [] }
    const tools = diffBuilds(a, b).tools
    expect(tools.filter((t) => t.status === "changed").map((t) => [t.name, t.changes])).toEqual([
      [a.tools[0]!.name, ["description"]],
      [a.tools[1]!.name, ["parameters"]],
    ])
  })
})

describe("renderDiff: names cut to fit", () => {
  it("never shows two different context files or tool names as the same text", () => {
    const tool = (name: string) => ({ name, description: `Does ${name}.`, inputSchema: { type: "object" } })
    const server = (names: string[]) => [{ name: "issue_tracker_for_the_company", tools: names.map(tool) }]
    const a = report(basicContext({ mcpServers: server(["get_issue_with_all_comments_and_links_a"]) }))
    const b = report(basicContext({ mcpServers: server(["get_issue_with_all_comments_and_links_b"]) }))
    const folder = "workspaces/customer-portal/contexts/snapshots-of-the-week"
    const text = renderDiff(diffBuilds(a, b, [`${folder}/before.json`, `${folder}/after.json`]))
    const lines = text.split("\n")
    const label = (side: string) => lines.find((l) => l.startsWith(`  ${side}: `))!.slice(5, 45)
    expect(label("a")).not.toBe(label("b"))
    expect(label("a")).toContain("before.json")
    const tools = lines.filter((l) => /^ {2}[+-] mcp__/.test(l)).map((l) => l.slice(4, 44))
    expect(tools).toHaveLength(2)
    expect(tools[0]).not.toBe(tools[1])
  })
})
