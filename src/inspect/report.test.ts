import fc from "fast-check"
import { beforeAll, describe, expect, it } from "vitest"
import type { PromptContext } from "../context/prompt-context.js"
import type { GatherReport } from "../context/report.js"
import { overheadOf, TokenCounter } from "../history/tokens.js"
import { PromptBuilder } from "../prompt/builder.js"
import { basicContext } from "../prompt/test-helpers/contexts.js"
import { renderXmlTool } from "../tools/xml.js"
import { type InspectInput, inspectReport } from "./report.js"

let counter: TokenCounter
const builder = new PromptBuilder()

beforeAll(async () => {
  counter = await TokenCounter.create()
})

function report(context: PromptContext, extra: Partial<InspectInput> = {}) {
  return inspectReport({ built: builder.build(context), context, counter, ...extra })
}

const codes = (r: ReturnType<typeof report>) => r.warnings.map((w) => w.code)

describe("inspectReport: figures", () => {
  it("counts each section, the system prompt, the context message and the tools as the context manager does", () => {
    const context = basicContext()
    const built = builder.build(context)
    const r = report(context)
    const family = built.model.tokenizer
    expect(family).toBe("claude")
    expect(r.counting).toMatchObject({ tokenizer: "claude", exact: false, factor: 1.25 })
    expect(r.sections.map((s) => s.id)).toEqual(built.sections.map((s) => s.id))
    for (const [i, s] of r.sections.entries()) expect(s.tokens).toBe(counter.countText(built.sections[i]!.text, family))
    expect(r.totals.system).toBe(counter.countText(built.text, family))
    expect(r.totals.contextMessage).toBe(counter.countText(built.contextMessage!, family))
    const overhead = overheadOf("anthropic")
    expect(r.totals.tools).toBe(counter.countTools(built.tools, family, overhead))
    expect(r.toolsPreamble).toBe(overhead.toolsPreamble)
    expect(r.tools.reduce((n, t) => n + t.tokens, 0) + r.toolsPreamble).toBe(r.totals.tools)
    expect(r.totals.total).toBe(r.totals.system + r.totals.contextMessage + r.totals.tools)
    expect(r.totals.windowShare).toBeCloseTo(r.totals.total / 200_000, 10)
  })

  it("shows each tool's definition in the provider's format", () => {
    const anthropic = report(basicContext())
    expect(JSON.parse(anthropic.tools[0]!.definition)).toHaveProperty("input_schema")
    const gemini = report(basicContext({ model: { id: "gemini-2.5-pro", provider: "google" } }))
    expect(gemini.model.wireFormat).toBe("gemini")
    expect(JSON.parse(gemini.tools[0]!.definition).name).toBe(gemini.tools[0]!.name)
    expect(gemini.toolsPreamble).toBe(0)
    const mcp = anthropic.tools.find((t) => t.mcp)
    expect(mcp).toMatchObject({ name: "mcp__tracker__get_issue", mcp: { server: "tracker", tool: "get_issue" } })
  })

  it("counts exactly for OpenAI models", () => {
    const r = report(basicContext({ model: { id: "gpt-5", provider: "openai" } }))
    expect(r.counting).toMatchObject({ tokenizer: "o200k", exact: true, factor: 1 })
    expect(r.model.wireFormat).toBe("openai-responses")
  })

  it("in the XML dialect, counts each tool's docs and leaves tool definitions at zero", () => {
    const context = basicContext({ toolCalling: "xml" })
    const built = builder.build(context)
    const r = report(context)
    expect(r.totals.tools).toBe(0)
    expect(r.segments.some((s) => s.kind === "tools")).toBe(false)
    expect(r.tools.every((t) => t.where === "prompt")).toBe(true)
    expect(r.tools[0]!.tokens).toBe(counter.countText(renderXmlTool(built.tools[0]!), "claude"))
    expect(r.sections.find((s) => s.id === "tool-use")!.text).toContain(r.tools[0]!.definition)
  })

  it("gives segments whose shares add up to 1, tools first, in the order they are sent (property)", () => {
    const arb = fc.record({
      placement: fc.constantFrom("system" as const, "context-message" as const),
      toolCalling: fc.constantFrom("native" as const, "xml" as const),
      model: fc.constantFrom("claude-sonnet-4-5", "gpt-5", "gemini-2.5-pro", "qwen2.5-coder:7b"),
      mcp: fc.boolean(),
    })
    fc.assert(
      fc.property(arb, ({ placement, toolCalling, model, mcp }) => {
        const context = basicContext({
          placement,
          toolCalling,
          model: {
            id: model,
            provider: model.startsWith("gpt")
              ? "openai"
              : model.startsWith("gemini")
                ? "google"
                : model.startsWith("qwen")
                  ? "ollama"
                  : "anthropic",
          },
          ...(mcp ? {} : { mcpServers: [] }),
        })
        const r = report(context)
        const sum = r.segments.reduce((n, s) => n + s.share, 0)
        expect(sum).toBeCloseTo(1, 9)
        const withTools = r.toolCalling === "native" && r.tools.length > 0
        expect(r.segments[0]!.kind === "tools").toBe(withTools)
        expect(r.segments.filter((s) => s.kind === "section").map((s) => s.id)).toEqual(r.sections.map((s) => s.id))
        expect(r.cache.prefix.map((p) => p.id)).toEqual([
          ...(withTools ? ["tools"] : []),
          ...r.sections.filter((s) => s.placement === "system").map((s) => s.id),
        ])
      }),
      { numRuns: 30 },
    )
  })
})

describe("inspectReport: cache layout", () => {
  it("lists the volatile sections and where they went", () => {
    const r = report(basicContext())
    expect(r.cache.volatile.map((v) => [v.id, v.placement])).toEqual([
      ["mcp-servers", "context-message"],
      ["skills", "context-message"],
      ["user-instructions", "context-message"],
      ["system-info", "context-message"],
    ])
    expect(r.cache.hash).toBe(builder.build(basicContext()).hash)
    expect(r.cache.prefix.some((p) => p.volatile)).toBe(false)
    const system = report(basicContext({ placement: "system" }))
    expect(system.cache.prefix.filter((p) => p.volatile).map((p) => p.id)).toEqual([
      "mcp-servers",
      "skills",
      "user-instructions",
      "system-info",
    ])
  })
})

describe("inspectReport: warnings", () => {
  it("no warning for the default placement: the cached prefix holds no volatile value", () => {
    expect(codes(report(basicContext()))).toEqual([])
  })

  it("warns when placement puts the environment into the system prompt", () => {
    const r = report(basicContext({ placement: "system" }))
    const warning = r.warnings.find((w) => w.code === "volatile-in-prefix")
    expect(warning?.message).toContain("section system-info")
    expect(warning?.message).toContain('the date "2026-11-29"')
    expect(warning?.message).toContain('the working directory "/home/dev/shop"')
    expect(warning?.message).toContain("placement context-message")
  })

  it("warns when a stable section leaks a value through the context (custom prompt)", () => {
    const r = report(
      basicContext({
        customPrompt: { mode: "append", text: "Only touch files in /home/dev/shop. Today: 2026-11-29." },
      }),
    )
    expect(r.warnings).toHaveLength(1)
    expect(r.warnings[0]!.message).toMatch(/^stable section custom-prompt holds the working directory/)
  })

  it("warns when a tool definition holds a volatile value (an MCP server's description)", () => {
    const r = report(
      basicContext({
        mcpServers: [
          {
            name: "files",
            tools: [
              { name: "read", description: "Reads files below /home/dev/shop.", inputSchema: { type: "object" } },
            ],
          },
        ],
      }),
    )
    expect(r.warnings.map((w) => w.message)).toEqual([
      expect.stringMatching(/^the definition of tool mcp__files__read holds the working directory .* ask server files/),
    ])
  })

  it("warns when the prompt takes more than the set share of the window, and not below it", () => {
    const r = report(basicContext(), { maxShare: 0.01 })
    expect(codes(r)).toEqual(["prompt-over-share"])
    expect(r.warnings[0]!.message).toContain("limit 1.0%")
    expect(codes(report(basicContext(), { maxShare: 0.5 }))).toEqual([])
    const small = report(basicContext({ model: { id: "qwen2.5-coder:7b", provider: "ollama" } }))
    expect(small.totals.windowShare > 0.1).toBe(codes(small).includes("prompt-over-share"))
  })

  it("warns when the tools differ from the last run only in order; notes added and removed tools", () => {
    const built = builder.build(basicContext())
    const names = built.tools.map((t) => t.name)
    const swapped = [names[1]!, names[0]!, ...names.slice(2)]
    const reordered = report(basicContext(), { previous: { tools: swapped, hash: "old" } })
    expect(codes(reordered)).toEqual(["tool-order-changed"])
    expect(reordered.warnings[0]!.message).toContain(`position 1 held ${names[1]}, now ${names[0]}`)
    expect(codes(report(basicContext(), { previous: { tools: names, hash: built.hash } }))).toEqual([])
    const changed = report(basicContext(), { previous: { tools: [...names.slice(1), "old_tool"], hash: "old" } })
    expect(changed.warnings).toEqual([
      expect.objectContaining({
        level: "info",
        code: "tools-changed",
        message: expect.stringContaining(`+${names[0]} -old_tool`),
      }),
    ])
    expect(reordered.lastRun).toEqual({ tools: names, hash: built.hash })
  })
})

describe("inspectReport: instruction files", () => {
  it("uses gather's report when there is one, with the tokens of each file in the context", () => {
    const gather: GatherReport = {
      instructions: [
        { kind: "instruction", path: "AGENTS.md", scope: "project", status: "loaded", convention: "agents-md" },
        { kind: "instruction", path: "CLAUDE.md", scope: "project", status: "skipped", reason: "untrusted workspace" },
      ],
      skills: [],
      mcpServers: [],
    }
    const r = report(basicContext(), { gather })
    expect(r.instructions.source).toBe("gather")
    expect(r.instructions.note).toBeUndefined()
    expect(r.instructions.entries[0]!.tokens).toBe(
      counter.countText("Run `npm test` before finishing.\n\nUse pnpm, not npm, to add packages.", "claude"),
    )
    expect(r.instructions.entries[1]).toMatchObject({ status: "skipped", reason: "untrusted workspace" })
    expect(r.instructions.entries[1]!.tokens).toBeUndefined()
  })

  it("says so when there is no gather report, and lists the files in the context", () => {
    const r = report(basicContext())
    expect(r.instructions.source).toBe("context")
    expect(r.instructions.note).toMatch(/^No gather report/)
    expect(r.instructions.entries.map((e) => [e.path, e.status])).toEqual([
      ["~/.config/promptline/AGENTS.md", "loaded"],
      ["AGENTS.md", "loaded"],
      [".cursor/rules/db.mdc", "requested"],
    ])
  })
})
