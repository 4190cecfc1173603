import { describe, expect, it } from "vitest"
import type { Message } from "../history/message.js"
import { toolCallToXml, toolResultToXml, toXmlDialect } from "./xml-dialect.js"

describe("the XML dialect on the request side", () => {
  it("writes a call with raw string values and JSON for other types", () => {
    const xml = toolCallToXml({
      name: "use_mcp_tool",
      input: {
        server_name: "fs",
        tool_name: "read",
        arguments: { path: "a<b>.ts" },
        count: 2,
        dry: false,
        skip: undefined,
      },
    })
    expect(xml).toBe(
      [
        "<use_mcp_tool>",
        "<server_name>fs</server_name>",
        "<tool_name>read</tool_name>",
        '<arguments>{"path":"a<b>.ts"}</arguments>',
        "<count>2</count>",
        "<dry>false</dry>",
        "</use_mcp_tool>",
      ].join("\n"),
    )
  })

  it("keeps code with angle brackets as it is", () => {
    const content = "if (a < b && c > d) {\n  return `<div>${x}</div>`\n}\n"
    expect(toolCallToXml({ name: "write_to_file", input: { path: "x.ts", content } })).toBe(
      `<write_to_file>\n<path>x.ts</path>\n<content>${content}</content>\n</write_to_file>`,
    )
  })

  it("wraps a result in a tool_result element naming the tool; errors say so", () => {
    expect(toolResultToXml("read_file", { content: "abc" })).toBe('<tool_result tool="read_file">\nabc\n</tool_result>')
    expect(toolResultToXml("read_file", { content: "missing", isError: true })).toBe(
      '<tool_result tool="read_file">\nError: missing\n</tool_result>',
    )
  })

  it("turns calls and results into text, keeping images and other blocks", () => {
    const history: Message[] = [
      {
        id: "a",
        role: "assistant",
        ts: 1,
        content: [
          { type: "thinking", text: "t", signature: "s" },
          { type: "text", text: "Reading." },
          { type: "tool_use", id: "1", name: "read_file", input: { path: "a.ts" } },
        ],
      },
      {
        id: "u",
        role: "user",
        ts: 2,
        content: [
          {
            type: "tool_result",
            toolUseId: "1",
            content: [
              { type: "text", text: "one" },
              { type: "image", mediaType: "image/png", data: "AA==" },
            ],
          },
          { type: "text", text: "next" },
        ],
      },
    ]
    const out = toXmlDialect(history)
    expect(out[0]!.content).toEqual([
      { type: "thinking", text: "t", signature: "s" },
      { type: "text", text: "Reading.\n\n<read_file>\n<path>a.ts</path>\n</read_file>" },
    ])
    expect(out[1]!.content).toEqual([
      { type: "text", text: '<tool_result tool="read_file">\none\n</tool_result>' },
      { type: "image", mediaType: "image/png", data: "AA==" },
      { type: "text", text: "next" },
    ])
    expect(history[0]!.content).toHaveLength(3)
  })
})
