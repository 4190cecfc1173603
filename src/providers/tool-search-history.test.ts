/** Tool searches and references written for an API that runs no tool search: calls, results and text. */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { Block, Message, ToolSearchBlock } from "../history/message.js"
import { resolveModel } from "../models/resolve.js"
import { SEARCH_TOOLS_NAME } from "../tools/search/index.js"
import { formatModule } from "./formats.js"
import { lowerToolSearches } from "./tool-search-history.js"

const search = (id: string, found: string[]): ToolSearchBlock => ({
  type: "tool_search",
  id,
  name: "tool_search_tool_bm25",
  input: { query: "issue" },
  found,
})
const msg = (id: string, role: Message["role"], content: Block[]): Message => ({ id, role, content, ts: 0 })
const text = (t: string): Block => ({ type: "text", text: t })

describe("lowerToolSearches", () => {
  it("splits an answer after its searches: calls, their results in a user message, then the rest of the answer", () => {
    const out = lowerToolSearches([
      msg("m1", "user", [text("Open an issue.")]),
      msg("m2", "assistant", [
        text("Searching."),
        search("s1", ["create_issue"]),
        search("s2", []),
        text("Found it."),
        { type: "tool_use", id: "t1", name: "create_issue", input: {} },
      ]),
      msg("m3", "user", [{ type: "tool_result", toolUseId: "t1", content: "done" }]),
    ])
    expect(out.map((m) => [m.role, m.content.map((b) => b.type)])).toEqual([
      ["user", ["text"]],
      ["assistant", ["text", "tool_use", "tool_use"]],
      ["user", ["tool_result", "tool_result"]],
      ["assistant", ["text", "tool_use"]],
      ["user", ["tool_result"]],
    ])
    expect(out[1]!.content[1]).toEqual({
      type: "tool_use",
      id: "s1",
      name: SEARCH_TOOLS_NAME,
      input: { query: "issue" },
    })
    const [found, none] = out[2]!.content as { content: string }[]
    expect(found!.content).toContain("now in your tool list: create_issue")
    expect(none!.content).toContain('No tool matched "issue"')
  })

  it("an answer that ends with a search has its results at the start of the next user message", () => {
    const out = lowerToolSearches([
      msg("m1", "user", [text("Hi")]),
      msg("m2", "assistant", [search("s1", ["a"])]),
      msg("m3", "user", [text("Go on.")]),
    ])
    expect(out.map((m) => [m.role, m.content.map((b) => b.type)])).toEqual([
      ["user", ["text"]],
      ["assistant", ["tool_use"]],
      ["user", ["tool_result", "text"]],
    ])
  })

  it("references in a tool result become a line of text after its content", () => {
    const out = lowerToolSearches([
      msg("m1", "user", [{ type: "tool_result", toolUseId: "t1", content: "", references: ["a", "b"] }]),
    ])
    expect(out[0]!.content).toEqual([
      { type: "tool_result", toolUseId: "t1", content: [{ type: "text", text: expect.stringContaining("a and b") }] },
    ])
  })

  it("a history without searches or references comes back as it is (the same array)", () => {
    const block = fc.oneof(
      fc.string().map((t): Block => ({ type: "text", text: t })),
      fc.string().map((id): Block => ({ type: "tool_use", id, name: "x", input: {} })),
      fc.string().map((id): Block => ({ type: "tool_result", toolUseId: id, content: "r" })),
    )
    const history = fc.array(
      fc.record({
        id: fc.string(),
        role: fc.constantFrom<Message["role"]>("user", "assistant"),
        content: fc.array(block),
        ts: fc.constant(0),
      }),
    )
    fc.assert(
      fc.property(history, (messages) => {
        expect(lowerToolSearches(messages)).toBe(messages)
      }),
    )
  })

  it("leaves no search nor reference, and every search call is answered right after it", () => {
    const entry = fc.oneof(
      fc.constant<Block>(text("t")),
      fc.nat(5).map((n) => search(`s${n}`, n % 2 === 0 ? ["a"] : [])),
      fc.nat(5).map((n): Block => ({ type: "tool_use", id: `c${n}`, name: "x", input: {} })),
    )
    const history = fc
      .array(fc.tuple(fc.array(entry, { minLength: 1 }), fc.boolean()), { maxLength: 5 })
      .map((turns) =>
        turns.flatMap(([content, user], i): Message[] => [
          msg(`a${i}`, "assistant", content),
          ...(user
            ? [msg(`u${i}`, "user", [{ type: "tool_result", toolUseId: "c0", content: "r", references: ["a"] }])]
            : []),
        ]),
      )
    fc.assert(
      fc.property(history, (messages) => {
        const out = lowerToolSearches(messages)
        for (const [i, m] of out.entries()) {
          for (const b of m.content) {
            expect(b.type).not.toBe("tool_search")
            if (b.type === "tool_result") expect(b.references).toBeUndefined()
            if (b.type === "tool_use" && b.name === SEARCH_TOOLS_NAME) {
              const next = out[i + 1]
              expect(next?.role).toBe("user")
              expect(next?.content.some((r) => r.type === "tool_result" && r.toolUseId === b.id)).toBe(true)
            }
          }
        }
      }),
    )
  })

  it("every encoder but Anthropic's with deferred tools writes a search as a call of promptline's search tool", () => {
    const messages = [
      msg("m1", "user", [text("Open an issue.")]),
      msg("m2", "assistant", [search("srvtoolu_1", ["create_issue"])]),
      msg("m3", "user", [text("Go on.")]),
    ]
    for (const format of ["openai-chat", "openai-responses", "gemini", "deepseek", "anthropic"] as const) {
      const model = resolveModel(
        format === "gemini"
          ? "gemini-2.5-pro"
          : format === "anthropic"
            ? "claude-sonnet-4-5"
            : format === "deepseek"
              ? "deepseek-chat"
              : "gpt-4.1",
      ).model
      const { body } = formatModule(format).encode({ prompt: { text: "", tools: [] }, messages, model })
      const json = JSON.stringify(body)
      expect(json, format).toContain(SEARCH_TOOLS_NAME)
      expect(json, format).toContain("now in your tool list: create_issue")
      expect(json, format).not.toContain("tool_search_tool_result")
    }
  })
})
