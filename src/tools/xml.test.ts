import { describe, expect, it } from "vitest"
import { everyBuiltin } from "./catalog/test-helpers/enable.js"
import type { EnabledTool } from "./spec.js"
import { renderXmlTool, renderXmlToolDocs, XML_CALL_FORMAT } from "./xml.js"

const COMPACT_TOOLS = [
  "execute_command",
  "read_file",
  "write_to_file",
  "replace_in_file",
  "search_files",
  "attempt_completion",
]

function tool(name: string, parameters: EnabledTool["parameters"], examples: Record<string, string> = {}): EnabledTool {
  return {
    id: name,
    kind: "mcp",
    name,
    description: `What ${name} does.`,
    snippet: "",
    guidelines: [],
    parameters,
    examples,
  }
}

describe("renderXmlToolDocs", () => {
  it("renders an empty tool list as (none)", () => {
    expect(renderXmlToolDocs([])).toBe("(none)")
    expect(renderXmlToolDocs([], { format: false })).toBe("(none)")
  })

  it("matches the readable snapshot for every built-in tool", async () => {
    await expect(renderXmlToolDocs(everyBuiltin())).toMatchFileSnapshot("__snapshots__/xml-docs.generic.md")
  })

  it("matches the readable snapshot for the compact variant", async () => {
    await expect(renderXmlToolDocs(everyBuiltin("compact", COMPACT_TOOLS))).toMatchFileSnapshot(
      "__snapshots__/xml-docs.compact.md",
    )
  })

  it("without labels, gives the same parameters and example without the Parameters: and Example: lines", () => {
    const tools = everyBuiltin("compact", COMPACT_TOOLS)
    const labelled = renderXmlToolDocs(tools)
    const bare = renderXmlToolDocs(tools, { labels: false })
    expect(bare).not.toMatch(/^(Parameters|Example):$/m)
    expect(bare).toBe(labelled.replace(/^(Parameters|Example):\n/gm, ""))
  })

  it("is deterministic and keeps the given tool order", () => {
    const tools = everyBuiltin()
    const text = renderXmlToolDocs(tools)
    expect(renderXmlToolDocs(everyBuiltin())).toBe(text)
    const reversed = renderXmlToolDocs([...tools].reverse())
    const order = (docs: string) => [...docs.matchAll(/^### (\S+)$/gm)].map((m) => m[1])
    expect(order(reversed)).toEqual(order(text).reverse())
  })

  it("starts with the call format unless asked not to, and sets the heading level", () => {
    const tools = everyBuiltin("generic", ["read_file"])
    expect(renderXmlToolDocs(tools).startsWith(XML_CALL_FORMAT)).toBe(true)
    const bare = renderXmlToolDocs(tools, { format: false, headingLevel: 2 })
    expect(bare.startsWith("## read_file\n")).toBe(true)
    expect(bare).not.toContain(XML_CALL_FORMAT)
  })

  it("shows example values raw, multi-line ones on their own lines", () => {
    const docs = renderXmlToolDocs(everyBuiltin("generic", ["replace_in_file", "write_to_file"]))
    expect(docs).toContain(
      "<diff>\n<<<<<<< SEARCH\nexport function max(a: number, b: number): number {\n  return a < b ? a : b",
    )
    expect(docs).toContain(">>>>>>> REPLACE\n</diff>")
    expect(docs).not.toContain("&lt;")
    // A value that ends with a newline is not followed by a blank line.
    expect(docs).toContain('"Hello, " + name\n}\n</content>')
  })

  it("marks required and optional parameters and names non-string types", () => {
    const text = renderXmlTool(
      tool(
        "t",
        {
          type: "object",
          properties: {
            path: { type: "string", description: "Where." },
            count: { type: "integer", description: "How many." },
            flags: { type: ["boolean", "null"] },
            mode: { type: "string", enum: ["fast", "slow"], description: "Speed." },
            tags: { type: "array", items: { type: "string" }, description: "Labels." },
          },
          required: ["path", "mode"],
        },
        { path: "src/a.ts" },
      ),
    )
    expect(text).toContain("- path (required): Where.")
    expect(text).toContain("- count (optional, JSON integer): How many.")
    expect(text).toContain("- flags (optional, JSON boolean)")
    expect(text).toContain("- mode (required, one of: fast, slow): Speed.")
    expect(text).toContain("- tags (optional, JSON array of string): Labels.")
    // Required parameters without an example get a placeholder from their schema; optional ones are left out.
    expect(text).toContain("<t>\n<path>src/a.ts</path>\n<mode>fast</mode>\n</t>")
  })

  it("shows the shape of nested object and array parameters", () => {
    const text = renderXmlTool(
      tool("n", {
        type: "object",
        properties: {
          filter: {
            type: "object",
            description: "Which rows.",
            properties: { field: { type: "string" }, values: { type: "array", items: { type: "number" } } },
            required: ["field"],
          },
          plain: { type: "object", description: "Anything." },
        },
        required: ["filter"],
      }),
    )
    expect(text).toContain(
      '- filter (required, JSON object): Which rows.\n  Schema: {"type":"object","properties":{"field":{"type":"string"},' +
        '"values":{"type":"array","items":{"type":"number"}}},"required":["field"]}',
    )
    expect(text).toContain("- plain (optional, JSON object): Anything.\n")
    expect(text).toContain("<filter>{}</filter>")
  })

  it("renders a tool without parameters with an empty call", () => {
    const text = renderXmlTool(tool("ping", { type: "object", properties: {}, required: [] }), 2)
    expect(text).toBe("## ping\nWhat ping does.\nExample:\n<ping>\n</ping>")
  })
})
