import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { EnabledTool, JsonSchema } from "../tools/spec.js"
import { Accumulator } from "./accumulate.js"
import type { StreamEvent } from "./stream.js"
import { toolCallToXml } from "./xml-dialect.js"
import { parseXmlToolCalls, withXmlToolCalls, XmlToolCallParser } from "./xml-parser.js"

function tool(name: string, properties: Record<string, JsonSchema>): EnabledTool {
  return {
    id: name,
    kind: "read",
    name,
    description: "",
    snippet: "",
    guidelines: [],
    parameters: { type: "object", properties, required: Object.keys(properties) },
    examples: {},
  }
}

const tools = [
  tool("read_file", { path: { type: "string" }, start_line: { type: "integer" }, end_line: { type: "integer" } }),
  tool("write_to_file", { path: { type: "string" }, content: { type: "string" } }),
  tool("execute_command", {
    command: { type: "string" },
    requires_approval: { type: "boolean" },
    timeout: { type: "number" },
  }),
  tool("use_subagents", { tasks: { type: "array", items: { type: "string" } } }),
  tool("use_mcp_tool", {
    server_name: { type: "string" },
    tool_name: { type: "string" },
    arguments: { type: "object" },
  }),
  tool("attempt_completion", { result: { type: "string" } }),
]

/** Merges adjacent text deltas and adjacent argument deltas of the same call. */
function merged(events: StreamEvent[]): StreamEvent[] {
  const out: StreamEvent[] = []
  for (const e of events) {
    const last = out[out.length - 1]
    if (e.type === "text" && last?.type === "text") out[out.length - 1] = { ...last, delta: last.delta + e.delta }
    else if (e.type === "tool_call_delta" && last?.type === "tool_call_delta" && last.id === e.id)
      out[out.length - 1] = { ...last, argsDelta: last.argsDelta + e.argsDelta }
    else out.push(e)
  }
  return out.filter((e) => !(e.type === "text" && e.delta === ""))
}

function parse(text: string, turn = 3) {
  return parseXmlToolCalls(text, { tools, turn })
}

function inputs(events: StreamEvent[]): unknown[] {
  return events.flatMap((e) => (e.type === "tool_call_end" ? [e.input] : []))
}

describe("XML tool-call parser", () => {
  it("turns a call into the same events a native decoder emits, keeping the text around it", () => {
    const { events, diagnostics } = parse(
      "I'll read it.\n\n<read_file>\n<path>src/a.ts</path>\n<start_line>10</start_line>\n</read_file>\nDone?",
    )
    expect(merged(events)).toEqual([
      { type: "text", delta: "I'll read it.\n\n" },
      { type: "tool_call_start", id: "xml_3_0", name: "read_file" },
      { type: "tool_call_delta", id: "xml_3_0", argsDelta: '{"path":"src/a.ts","start_line":10}' },
      { type: "tool_call_end", id: "xml_3_0", input: { path: "src/a.ts", start_line: 10 } },
      { type: "text", delta: "\nDone?" },
    ])
    expect(diagnostics).toEqual([])
  })

  it("keeps code with <, >, </div> and even the value's own close tag inside a value", () => {
    const content = 'if (a < b && c > d) {\n  html = "<div><content>x</content></div>"\n}\n</content> is literal here\n'
    const text = `<write_to_file>\n<path>x.ts</path>\n<content>\n${content}\n</content>\n</write_to_file>`
    const { events } = parse(text)
    expect(inputs(events)).toEqual([{ path: "x.ts", content }])
    const deltas = events.flatMap((e) => (e.type === "tool_call_delta" ? [e.argsDelta] : [])).join("")
    expect(JSON.parse(deltas)).toEqual({ path: "x.ts", content })
  })

  it("drops the two line breaks that wrap a value on lines of its own, and nothing of an inline value", () => {
    const wrapped = parse(
      "<attempt_completion>\n<result>\n\nTwo blank lines around.\n\n</result>\n</attempt_completion>",
    )
    expect(inputs(wrapped.events)).toEqual([{ result: "\nTwo blank lines around.\n" }])
    const inline = parse("<write_to_file><path>a</path><content>ends with a line break\n</content></write_to_file>")
    expect(inputs(inline.events)).toEqual([{ path: "a", content: "ends with a line break\n" }])
  })

  it("reads back exactly what the request side's XML writer wrote (property)", () => {
    const value = fc.string({ unit: "grapheme", maxLength: 40 }).filter((v) => !v.includes("</") && !/^\r?\n/.test(v))
    fc.assert(
      fc.property(value, value, fc.integer(), fc.boolean(), (path, content, timeout, approval) => {
        const calls = [
          { name: "write_to_file", input: { path, content } },
          { name: "execute_command", input: { command: content, requires_approval: approval, timeout } },
        ]
        const text = calls.map(toolCallToXml).join("\n\n")
        expect(inputs(parse(text).events)).toEqual(calls.map((c) => c.input))
      }),
      { numRuns: 300 },
    )
  })

  it("converts typed parameters from JSON and falls back to the raw text with a diagnostic", () => {
    const { events, diagnostics } = parse(
      [
        "<execute_command><command>npm test</command><requires_approval>True</requires_approval><timeout>30</timeout></execute_command>",
        '<use_subagents><tasks>["a", "b"]</tasks></use_subagents>',
        '<use_mcp_tool><server_name>gh</server_name><tool_name>search</tool_name><arguments>{"q": "<b>x</b>"}</arguments></use_mcp_tool>',
        "<read_file><path>a</path><start_line>ten</start_line></read_file>",
      ].join("\n"),
    )
    expect(inputs(events)).toEqual([
      { command: "npm test", requires_approval: true, timeout: 30 },
      { tasks: ["a", "b"] },
      { server_name: "gh", tool_name: "search", arguments: { q: "<b>x</b>" } },
      { path: "a", start_line: "ten" },
    ])
    expect(diagnostics.map((d) => d.code)).toEqual(["xml-argument-not-json"])
    // Argument deltas of every call are the JSON text of its input.
    const byCall = new Map<string, string>()
    for (const e of events) if (e.type === "tool_call_delta") byCall.set(e.id, (byCall.get(e.id) ?? "") + e.argsDelta)
    expect([...byCall.values()].map((json) => JSON.parse(json))).toEqual(inputs(events))
  })

  it("recognizes only enabled tools and their parameters; everything else stays text", () => {
    const text = "Use <read_file> to read, or <search_files><path>.</path></search_files>. a<b, <thinking>hm</thinking>"
    const { events } = parse(text)
    expect(merged(events)).toEqual([{ type: "text", delta: text }])
  })

  it("skips unknown parameters and stray text inside a call, with diagnostics", () => {
    const { events, diagnostics } = parse(
      "<read_file>\n<path>a.ts</path>\nplease\n<reason>why </path> not</reason>\n</read_file>",
    )
    expect(inputs(events)).toEqual([{ path: "a.ts" }])
    expect(diagnostics.map((d) => d.code)).toEqual(["xml-stray-text", "xml-unknown-parameter"])
  })

  it("reports a call left open at the end as partial, with its text", () => {
    const { events } = parse("Writing.\n<write_to_file>\n<path>a.txt</path>\n<content>\nhalf a fi")
    expect(events.filter((e) => e.type === "tool_call_end")).toEqual([])
    expect(events[events.length - 1]).toEqual({
      type: "error",
      kind: "partial-call",
      message: "tool call xml_3_0 (write_to_file) was cut off before </write_to_file>",
      raw: "<write_to_file>\n<path>a.txt</path>\n<content>\nhalf a fi",
      toolCallId: "xml_3_0",
    })
    const acc = new Accumulator({ ts: 0 })
    for (const e of events) acc.push(e)
    expect(acc.finish()[0]!.message.content).toEqual([{ type: "text", text: "Writing.\n" }])
  })

  it("reports an open tag cut off before its first parameter as partial too", () => {
    const { events } = parse("Let me run <execute_command>\n")
    expect(merged(events)).toEqual([
      { type: "text", delta: "Let me run " },
      {
        type: "error",
        kind: "partial-call",
        message: "the execute_command call was cut off before its first parameter",
        raw: "<execute_command>\n",
      },
    ])
  })

  it("numbers calls, handles several in one message, and leaves no whitespace-only text between them", () => {
    const { events } = parse("<read_file><path>a</path></read_file>\n\n<read_file><path>b</path></read_file>\n", 7)
    expect(events.filter((e) => e.type === "tool_call_start")).toEqual([
      { type: "tool_call_start", id: "xml_7_0", name: "read_file" },
      { type: "tool_call_start", id: "xml_7_1", name: "read_file" },
    ])
    expect(events.filter((e) => e.type === "text")).toEqual([])
    const after = parse("<read_file><path>a</path></read_file>\n\nThen more.")
    expect(after.events.filter((e) => e.type === "text")).toEqual([{ type: "text", delta: "\n\nThen more." }])
  })

  it("streams string values as they arrive, before the close tag", () => {
    const parser = new XmlToolCallParser({ tools })
    expect(parser.feed("<write_to_file><path>a</path><content>\nline one\n").at(-1)).toEqual({
      type: "tool_call_delta",
      id: "xml_0_0",
      argsDelta: "line one",
    })
    // The line break was held back (it may be the wrapping one before the close tag); it goes out once more text follows.
    expect(parser.feed("line two")).toEqual([{ type: "tool_call_delta", id: "xml_0_0", argsDelta: "\\nline two" }])
    expect(parser.feed("\n</content>\n</write_to_file>").at(-1)).toEqual({
      type: "tool_call_end",
      id: "xml_0_0",
      input: { path: "a", content: "line one\nline two" },
    })
  })

  it("gives the same events however the text is split into deltas (property)", () => {
    const samples = [
      "Plan first.\n<read_file>\n<path>src/ünï 👋.ts</path>\n<end_line>5</end_line>\n</read_file>",
      "<write_to_file>\r\n<path>a</path>\r\n<content>\r\n</content> x </write_to_file> <y>\r\n</content>\r\n</write_to_file>tail <",
      "a < b <read_file> no call <execute_command><command>ls</command><timeout>x</timeout></execute_command><use_subagents>",
    ]
    for (const text of samples) {
      const whole = merged(parse(text).events)
      fc.assert(
        fc.property(fc.array(fc.nat({ max: text.length }), { maxLength: 20 }), (cuts) => {
          const points = [...new Set(cuts)].sort((a, b) => a - b)
          const parser = new XmlToolCallParser({ tools, turn: 3 })
          const events: StreamEvent[] = []
          let from = 0
          for (const p of [...points, text.length]) {
            events.push(...parser.feed(text.slice(from, p)))
            from = p
          }
          events.push(...parser.end())
          expect(merged(events)).toEqual(whole)
        }),
        { numRuns: 200 },
      )
    }
  })

  it("runs a decoded stream through the parser and turns a normal stop into tool_use", async () => {
    const source: StreamEvent[] = [
      { type: "start", id: "r1" },
      { type: "thinking", delta: "think" },
      { type: "text", delta: "Ok.\n<read_fi" },
      { type: "text", delta: "le><path>a</path></read_file>" },
      { type: "usage", input: 1, output: 2, cacheRead: 0, cacheWrite: 0 },
      { type: "stop", reason: "end" },
    ]
    const out: StreamEvent[] = []
    for await (const e of withXmlToolCalls(source, { tools, turn: 1 })) out.push(e)
    expect(out[out.length - 1]).toEqual({ type: "stop", reason: "tool_use" })
    const acc = new Accumulator({ ts: 0 })
    for (const e of out) acc.push(e)
    expect(acc.finish()[0]!.message.content).toEqual([
      { type: "thinking", text: "think" },
      { type: "text", text: "Ok.\n" },
      { type: "tool_use", id: "xml_1_0", name: "read_file", input: { path: "a" } },
    ])
  })
})
