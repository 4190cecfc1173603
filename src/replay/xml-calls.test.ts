import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { parseXmlToolResults, renderXmlCall, xmlTurnText } from "./xml-calls.js"

describe("XML dialect helpers", () => {
  it("writes string values raw and other values as JSON", () => {
    const code = 'if (a < b && c > d) { return "</div>" }\n'
    expect(renderXmlCall({ name: "write_to_file", input: { path: "a.ts", content: code } })).toBe(
      `<write_to_file>\n<path>a.ts</path>\n<content>${code}</content>\n</write_to_file>`,
    )
    expect(renderXmlCall({ name: "use_mcp_tool", input: { arguments: { q: [1, true] }, timeout: 5 } })).toBe(
      '<use_mcp_tool>\n<arguments>{"q":[1,true]}</arguments>\n<timeout>5</timeout>\n</use_mcp_tool>',
    )
    expect(xmlTurnText(undefined, [{ name: "attempt_completion", input: { result: "Done" } }])).toBe(
      "<attempt_completion>\n<result>Done</result>\n</attempt_completion>",
    )
  })

  it("reads back the tool results the XML dialect writes, even when they quote the closing tag", () => {
    const text =
      'Here you go.\n<tool_result tool="read_file">\nline with </tool_result> inside\nlast\n</tool_result>\n' +
      '<tool_result tool="execute_command">\nexit code 0\n</tool_result>'
    expect(parseXmlToolResults(text)).toEqual([
      { tool: "read_file", text: "line with </tool_result> inside\nlast" },
      { tool: "execute_command", text: "exit code 0" },
    ])
  })

  it("round-trips any result text", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ tool: fc.stringMatching(/^[a-z_]{1,12}$/), text: fc.string({ maxLength: 80 }) }), {
          maxLength: 4,
        }),
        (results) => {
          const written = results.map((r) => `<tool_result tool="${r.tool}">\n${r.text}\n</tool_result>`).join("\n\n")
          expect(parseXmlToolResults(written)).toEqual(results)
        },
      ),
    )
  })
})
