/**
 * Deferred tools a client declares (Claude Code's MCP tools with `defer_loading: true`, its placeholder that must
 * never be called, a Responses client's deferred functions): read as deferred, kept deferred by an Anthropic
 * upstream with the same search, and never offered as ordinary tools by an upstream that cannot defer.
 */
import type { BetaToolUnion } from "@anthropic-ai/sdk/resources/beta/messages/messages"
import { describe, expect, expectTypeOf, it } from "vitest"
import { resolveModel } from "../models/resolve.js"
import type { WireFormat } from "../models/types.js"
import { encodeAnthropic } from "./anthropic/encode.js"
import { decodeAnthropicRequest } from "./anthropic/request-decode.js"
import { formatModule } from "./formats.js"
import { decodeOpenAIResponsesRequest } from "./openai-responses/request-decode.js"
import { PLACEHOLDER_DESCRIPTION, SCHEMA } from "./test-helpers/client-bodies.js"

const tool = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  description: `The ${name} tool.`,
  input_schema: SCHEMA,
  ...extra,
})

/** A request shaped as Claude Code sends one with tool search on: its own search tool, deferred MCP tools, a placeholder. */
const claudeCode = (extraTools: unknown[] = [], toolChoice?: unknown) => ({
  model: "claude-opus-4-8",
  max_tokens: 32_000,
  messages: [{ role: "user", content: "Open an issue about the crash." }],
  thinking: { type: "adaptive" },
  tools: [
    tool("Bash"),
    tool("ToolSearch"),
    tool("mcp__github__create_issue", { defer_loading: true }),
    tool("mcp__github__list_issues", { defer_loading: true }),
    { ...tool("DeferredPlaceholder"), description: PLACEHOLDER_DESCRIPTION, defer_loading: true },
    ...extraTools,
  ],
  ...(toolChoice ? { tool_choice: toolChoice } : {}),
})

const names = (tools: readonly { name: string }[] | undefined) => (tools ?? []).map((t) => t.name)

describe("deferred tools: what a client declares, read", () => {
  it("Claude Code: defer_loading tools and the placeholder are deferred, searched by the client itself", () => {
    const decoded = decodeAnthropicRequest(claudeCode())
    expect(names(decoded.prompt.tools)).toEqual(["Bash", "ToolSearch"])
    expect(names(decoded.prompt.deferredTools)).toEqual([
      "mcp__github__create_issue",
      "mcp__github__list_issues",
      "DeferredPlaceholder",
    ])
    expect(decoded.options.nativeToolSearch).toBe("client")
    expect(decoded.sources.deferredTools).toEqual(["tools[2]", "tools[3]", "tools[4]"])
    expect(decoded.unmodeled).toEqual([])
  })

  it("Anthropic's search tools in both spellings, BM25 and regex; a placeholder not marked deferred is deferred too", () => {
    for (const [type, variant] of [
      ["tool_search_tool_bm25_20251119", true],
      ["tool_search_tool_bm25", true],
      ["tool_search_tool_regex_20251119", "regex"],
      ["tool_search_tool_regex", "regex"],
    ] as const) {
      const decoded = decodeAnthropicRequest(claudeCode([{ type, name: type.replace(/_2025\d+$/, "") }]))
      expect(decoded.options.nativeToolSearch, type).toBe(variant)
      expect(decoded.sources.nativeToolSearch).toEqual(["tools[5]"])
    }
    const loose = decodeAnthropicRequest({
      model: "m",
      max_tokens: 10,
      messages: [],
      tools: [tool("read"), { ...tool("spare"), description: "Do not call this tool." }],
    })
    expect([names(loose.prompt.tools), names(loose.prompt.deferredTools)]).toEqual([["read"], ["spare"]])
  })

  it("a Responses client's functions with defer_loading, and other function keys named", () => {
    const fn = (name: string, extra: Record<string, unknown> = {}) => ({
      type: "function",
      name,
      parameters: SCHEMA,
      ...extra,
    })
    const decoded = decodeOpenAIResponsesRequest({
      model: "m",
      input: "hi",
      tools: [
        fn("read", { strict: false }),
        fn("find", { defer_loading: true }),
        fn("run", { allowed_callers: ["direct"] }),
      ],
    })
    expect([names(decoded.prompt.tools), names(decoded.prompt.deferredTools)]).toEqual([["read", "run"], ["find"]])
    expect(decoded.unmodeled).toEqual(["tools[2].allowed_callers"])
  })
})

describe("deferred tools: what each upstream gets", () => {
  it("Anthropic keeps them deferred, with the client's search (none for Claude Code's own, regex for regex)", () => {
    const model = resolveModel("claude-opus-4-8", { provider: "anthropic" }).model
    for (const [extra, search] of [
      [[], undefined],
      [[{ type: "tool_search_tool_regex_20251119", name: "tool_search_tool_regex" }], "tool_search_tool_regex"],
      [[{ type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25" }], "tool_search_tool_bm25"],
    ] as const) {
      const decoded = decodeAnthropicRequest(claudeCode([...extra]))
      const { body, uncarried } = encodeAnthropic({ ...decoded, model })
      const tools = body.tools ?? []
      expectTypeOf(tools).toExtend<BetaToolUnion[]>()
      expect(tools.filter((t) => "defer_loading" in t && t.defer_loading).map((t) => t.name)).toEqual(
        names(decoded.prompt.deferredTools),
      )
      expect(tools.filter((t) => "type" in t).map((t) => t.name)).toEqual(search ? [search] : [])
      expect(uncarried).toBeUndefined()
      // Read back, the request is the one the client sent.
      const back = decodeAnthropicRequest(JSON.parse(JSON.stringify(body)))
      expect([back.options.nativeToolSearch, names(back.prompt.deferredTools)]).toEqual([
        decoded.options.nativeToolSearch,
        names(decoded.prompt.deferredTools),
      ])
    }
  })

  const others: [WireFormat, string, string][] = [
    ["openai-chat", "gpt-5", "openai"],
    ["openai-responses", "gpt-5", "openai"],
    ["gemini", "gemini-2.5-flash", "gemini"],
    ["deepseek", "deepseek-chat", "deepseek"],
  ]

  it("an upstream that cannot defer offers only the loaded tools and reports the deferred ones", () => {
    const decoded = decodeAnthropicRequest(claudeCode())
    for (const [format, id, provider] of others) {
      const model = resolveModel(id, { provider }).model
      const encoded = formatModule(format).encode({ ...decoded, model })
      const back = formatModule(format).decodeRequest(JSON.parse(JSON.stringify(encoded.body)), { model: id })
      expect(names(back.prompt.tools), format).toEqual(["Bash", "ToolSearch"])
      expect(JSON.stringify(encoded.body), format).not.toContain("DeferredPlaceholder")
      // The search over them (the client's own here) cannot go either; both name the same tools.
      expect(encoded.uncarried, format).toEqual(["deferredTools", "nativeToolSearch"])
    }
  })

  it("a tool choice that names a deferred tool is not sent where the tool is not offered, and is reported", () => {
    const decoded = decodeAnthropicRequest(claudeCode([], { type: "tool", name: "mcp__github__create_issue" }))
    for (const [format, id, provider] of others) {
      const model = resolveModel(id, { provider }).model
      const encoded = formatModule(format).encode({ ...decoded, model })
      const back = formatModule(format).decodeRequest(JSON.parse(JSON.stringify(encoded.body)), { model: id })
      expect(back.options.toolChoice, format).toBeUndefined()
      expect(encoded.uncarried, format).toEqual(expect.arrayContaining(["deferredTools", "toolChoice"]))
    }
  })
})
