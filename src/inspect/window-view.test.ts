import fc from "fast-check"
import { beforeAll, describe, expect, it } from "vitest"
import type { PromptContext } from "../context/prompt-context.js"
import type { GatherReport } from "../context/report.js"
import { budgetFor } from "../history/budget.js"
import type { Message } from "../history/message.js"
import { overheadOf, TokenCounter } from "../history/tokens.js"
import { PromptBuilder } from "../prompt/builder.js"
import { basicContext } from "../prompt/test-helpers/contexts.js"
import { type InspectInput, inspectReport } from "./report.js"

let counter: TokenCounter
const builder = new PromptBuilder()
beforeAll(async () => {
  counter = await TokenCounter.create()
})
const report = (context: PromptContext, extra: Partial<InspectInput> = {}) =>
  inspectReport({ built: builder.build(context), context, counter, ...extra })

/** A conversation with every kind of block. */
function sampleHistory(repeat = 1, text = "Fix the failing test in src/a.ts."): Message[] {
  const out: Message[] = []
  for (let i = 0; i < repeat; i++) {
    out.push(
      { id: `u${i}`, role: "user", ts: i, content: [{ type: "text", text }] },
      {
        id: `a${i}`,
        role: "assistant",
        ts: i,
        content: [
          { type: "thinking", text: "The test imports a missing helper.", signature: "sig" },
          { type: "text", text: "Reading the file." },
          { type: "tool_use", id: `t${i}`, name: "read_file", input: { path: "src/a.ts" } },
        ],
      },
      {
        id: `r${i}`,
        role: "user",
        ts: i,
        content: [{ type: "tool_result", toolUseId: `t${i}`, content: "export const a = 1\n".repeat(20) }],
      },
    )
  }
  return out
}

const part = (r: ReturnType<typeof report>, id: string) => r.window.parts.find((p) => p.id === id)?.tokens ?? 0

describe("the window view", () => {
  it("splits the prompt into system, tools, MCP tools and instructions, then the reserve and free space", () => {
    const context = basicContext()
    const r = report(context)
    const ids = r.window.parts.map((p) => p.id)
    expect(ids).toEqual(["system", "tools", "mcp-tools", "instructions", "reserve", "free"])
    const mcp = r.tools.filter((t) => t.mcp).reduce((n, t) => n + t.tokens, 0)
    expect(part(r, "mcp-tools")).toBe(mcp)
    expect(part(r, "tools") + part(r, "mcp-tools")).toBe(r.totals.tools)
    expect(part(r, "instructions")).toBe(r.sections.find((s) => s.id === "user-instructions")!.tokens)
    expect(r.window.used).toBe(r.totals.total)
    const budget = budgetFor(builder.build(context).model)
    expect(r.window.reserve).toBe(budget.window - budget.effective)
    expect(r.window.parts.reduce((n, p) => n + p.tokens, 0)).toBe(r.window.window)
    expect(r.window.parts.reduce((n, p) => n + p.share, 0)).toBeCloseTo(1, 9)
    expect(r.window.history).toBeUndefined()
  })

  it("in the XML dialect, moves the tool docs out of the system prompt into the tools", () => {
    const r = report(basicContext({ model: { id: "qwen3-coder", provider: "ollama" } }))
    expect(r.toolCalling).toBe("xml")
    const docs = r.tools.reduce((n, t) => n + t.tokens, 0)
    expect(part(r, "tools") + part(r, "mcp-tools")).toBe(docs)
    expect(part(r, "system")).toBe(r.totals.system + r.totals.contextMessage - part(r, "instructions") - docs)
  })

  it("counts a conversation by kind; the kinds add up to what the context manager counts", () => {
    const context = basicContext()
    const history = sampleHistory(3)
    const r = report(context, { history })
    const family = builder.build(context).model.tokenizer
    const overhead = overheadOf("anthropic")
    const blocks = (type: string) =>
      history
        .flatMap((m) => m.content.filter((b) => b.type === type).map((b) => counter.countBlock(b, family, overhead)))
        .reduce((a, b) => a + b, 0)
    expect(part(r, "reasoning")).toBe(blocks("thinking"))
    expect(part(r, "tool-calls")).toBe(blocks("tool_use"))
    expect(part(r, "tool-results")).toBe(blocks("tool_result"))
    const messages = counter.countMessages(history, family, overhead)
    const kinds = ["user", "assistant", "tool-calls", "tool-results", "reasoning", "compaction", "framing"]
    expect(kinds.reduce((n, id) => n + part(r, id), 0)).toBe(messages)
    expect(r.window.history).toEqual({ messages: 9, tokens: messages })
    expect(r.window.used).toBe(r.totals.total + messages)
    expect(part(r, "free")).toBe(r.window.window - r.window.reserve - r.window.used)
  })

  it("counts a provider's compaction item as its own kind, not as assistant text", () => {
    const context = basicContext()
    const summary = "The task: add a --json flag. Done so far: the parser reads it. ".repeat(20)
    const history: Message[] = [
      { id: "c1", role: "assistant", ts: 1, content: [{ type: "compaction", format: "anthropic", summary }] },
      { id: "u1", role: "user", ts: 2, content: [{ type: "text", text: "Go on." }] },
    ]
    const r = report(context, { history })
    const family = builder.build(context).model.tokenizer
    const compaction = counter.countBlock(history[0]!.content[0]!, family, overheadOf("anthropic"))
    expect(compaction).toBeGreaterThan(100)
    expect(part(r, "compaction")).toBe(compaction)
    expect(part(r, "assistant")).toBe(0)
    expect(r.window.parts.find((p) => p.id === "compaction")?.label).toBe("provider compaction")
  })

  it("warns when the prompt and the conversation pass the budget; the bar still adds up to 1", () => {
    const r = report(basicContext(), { history: sampleHistory(1, "lorem ipsum dolor ".repeat(60_000)) })
    expect(r.window.over).toBeGreaterThan(0)
    expect(part(r, "free")).toBe(0)
    expect(r.warnings.map((w) => w.code)).toContain("window-over-budget")
    expect(r.window.parts.reduce((n, p) => n + p.share, 0)).toBeCloseTo(1, 9)
    expect(report(basicContext(), { history: sampleHistory(2) }).warnings.map((w) => w.code)).not.toContain(
      "window-over-budget",
    )
  })

  it("has shares that add up to 1 and tokens that fill the window, whatever the conversation (property)", () => {
    const context = basicContext()
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 6 }), fc.string({ maxLength: 400 }), (n, text) => {
        const r = report(context, { history: sampleHistory(n, text) })
        const sum = r.window.parts.reduce((a, p) => a + p.share, 0)
        const tokens = r.window.parts.reduce((a, p) => a + p.tokens, 0)
        return Math.abs(sum - 1) < 1e-9 && tokens === Math.max(r.window.window, r.window.used + r.window.reserve)
      }),
      { numRuns: 20 },
    )
  })
})

describe("skills and MCP servers", () => {
  it("gives each skill its name, path, status, why, and the tokens of its line in the prompt", () => {
    const context = basicContext()
    const gather: GatherReport = {
      instructions: [],
      skills: [
        {
          kind: "skill",
          path: ".agents/skills/release-notes/SKILL.md",
          scope: "project",
          status: "loaded",
          detail: "release-notes",
        },
        {
          kind: "skill",
          path: ".agents/skills/old/SKILL.md",
          scope: "project",
          status: "skipped",
          reason: "bad fields",
        },
      ],
      mcpServers: [
        {
          kind: "mcp-server",
          path: "tracker",
          scope: "project",
          status: "loaded",
          convention: "claude",
          detail: "1 tool, 1 resource, 0 resource templates; from .mcp.json",
        },
        {
          kind: "mcp-server",
          path: "down",
          scope: "user",
          status: "failed",
          convention: "cursor",
          reason: "connection refused",
          detail: "from ~/.cursor/mcp.json",
        },
      ],
    }
    const r = report(context, { gather })
    const family = builder.build(context).model.tokenizer
    expect(r.skills).toEqual([
      {
        name: "release-notes",
        path: ".agents/skills/release-notes/SKILL.md",
        scope: "project",
        status: "loaded",
        tokens: counter.countText(
          "- release-notes: Write release notes from the git log. (.agents/skills/release-notes/SKILL.md)",
          family,
        ),
      },
      { path: ".agents/skills/old/SKILL.md", scope: "project", status: "skipped", why: "bad fields" },
    ])
    const tool = r.tools.find((t) => t.mcp?.server === "tracker")!
    expect(r.mcpServers).toEqual([
      {
        name: "tracker",
        source: ".mcp.json",
        format: "claude",
        scope: "project",
        status: "loaded",
        tools: 1,
        tokens: tool.tokens,
      },
      {
        name: "down",
        source: "~/.cursor/mcp.json",
        format: "cursor",
        scope: "user",
        status: "failed",
        why: "connection refused",
        tools: 0,
        tokens: 0,
      },
    ])
  })

  it("without a gather report, lists the skills and servers of the context", () => {
    const r = report(basicContext())
    expect(r.skills).toEqual([
      expect.objectContaining({ name: "release-notes", status: "loaded", why: "in the context file" }),
    ])
    expect(r.mcpServers).toEqual([expect.objectContaining({ name: "tracker", status: "loaded", tools: 1 })])
  })
})
