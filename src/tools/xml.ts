import type { EnabledTool, JsonSchema } from "./spec.js"

// The XML dialect's documentation for the system prompt: how a call is written, then each tool with its
// description, parameters and one usage example. The streaming parser for the model's calls is providers/xml-parser.ts.

/** How a call is written in the XML dialect: the text that precedes the tool list unless turned off. */
export const XML_CALL_FORMAT = `Call a tool by writing XML in your reply, the tool's name around one tag per parameter:

<tool_name>
<parameter_name>value</parameter_name>
</tool_name>

Values are plain text, never escaped (code with < and > is fine); a value of several lines goes on the lines \
between its tags. Parameters marked JSON take JSON text. Leave out optional parameters you do not need. The result \
comes back in the next message as <tool_result tool="tool_name">...</tool_result>.`

/** The types whose values are written as JSON text in the XML dialect. */
const JSON_TYPES = new Set(["object", "array", "number", "integer", "boolean"])

/** Options of the XML tool docs. */
export interface XmlToolDocsOptions {
  /** Start with the call format (XML_CALL_FORMAT). Default: true. */
  format?: boolean
  /** Markdown heading level of each tool's name. Default: 3 (the docs sit under a "## Tools" heading). */
  headingLevel?: number
  /** The "Parameters:" and "Example:" lines before the list and the example. Default: true (false saves tokens). */
  labels?: boolean
}

/** Renders the XML dialect's tool docs: the call format, then every tool in the given order; "(none)" when empty. */
export function renderXmlToolDocs(tools: readonly EnabledTool[], options: XmlToolDocsOptions = {}): string {
  if (tools.length === 0) return "(none)"
  const level = Math.min(6, Math.max(1, options.headingLevel ?? 3))
  const parts = tools.map((tool) => renderXmlTool(tool, level, options.labels ?? true))
  return (options.format === false ? parts : [XML_CALL_FORMAT, ...parts]).join("\n\n")
}

/** Renders one tool: heading, description, parameters and a usage example (`labels`: each under its label). */
export function renderXmlTool(tool: EnabledTool, headingLevel = 3, labels = true): string {
  const names = Object.keys(tool.parameters.properties)
  const required = new Set(tool.parameters.required)
  const lines = [`${"#".repeat(headingLevel)} ${tool.name}`, tool.description.trim()]
  if (names.length > 0) {
    if (labels) lines.push("Parameters:")
    for (const name of names) {
      const schema = tool.parameters.properties[name] ?? {}
      lines.push(renderParameter(name, schema, required.has(name)))
    }
  }
  if (labels) lines.push("Example:")
  lines.push(renderExample(tool, names, required))
  return lines.join("\n")
}

function renderParameter(name: string, schema: JsonSchema, required: boolean): string {
  const facts = [required ? "required" : "optional"]
  const type = typeLabel(schema)
  if (type) facts.push(type)
  if (Array.isArray(schema.enum) && schema.enum.length > 0) {
    facts.push(
      `one of: ${schema.enum.map((value) => (typeof value === "string" ? value : JSON.stringify(value))).join(", ")}`,
    )
  }
  const description = typeof schema.description === "string" ? schema.description.trim() : ""
  let line = `- ${name} (${facts.join(", ")})${description ? `: ${description}` : ""}`
  const shape = nestedShape(schema)
  if (shape) line += `\n  Schema: ${shape}`
  return line
}

/** "JSON boolean", "JSON array of string", ...; undefined for plain strings and untyped values. */
function typeLabel(schema: JsonSchema): string | undefined {
  const types = (Array.isArray(schema.type) ? schema.type : [schema.type]).filter(
    (t): t is string => typeof t === "string" && t !== "null",
  )
  if (types.length === 0 || (types.length === 1 && types[0] === "string")) return undefined
  const words = types.map((t) => {
    if (t === "array" && schema.items && typeof schema.items.type === "string") return `array of ${schema.items.type}`
    return t
  })
  return types.some((t) => JSON_TYPES.has(t)) ? `JSON ${words.join(" or ")}` : words.join(" or ")
}

/** The JSON Schema of an object or array parameter whose shape the model needs to see, without descriptions at the top. */
function nestedShape(schema: JsonSchema): string | undefined {
  const hasProperties = schema.properties !== undefined && Object.keys(schema.properties).length > 0
  const items = schema.items
  const hasRichItems = items !== undefined && Object.keys(items).some((key) => key !== "type" && key !== "description")
  const hasCombinators = ["anyOf", "oneOf", "allOf", "$ref"].some((key) => key in schema)
  if (!hasProperties && !hasRichItems && !hasCombinators) return undefined
  const { description: _description, ...rest } = schema
  return JSON.stringify(rest)
}

function renderExample(tool: EnabledTool, names: string[], required: Set<string>): string {
  const lines = [`<${tool.name}>`]
  for (const name of names) {
    const example =
      tool.examples[name] ?? (required.has(name) ? placeholder(tool.parameters.properties[name]) : undefined)
    if (example === undefined) continue
    lines.push(
      example.includes("\n") ? `<${name}>\n${example.replace(/\n$/, "")}\n</${name}>` : `<${name}>${example}</${name}>`,
    )
  }
  lines.push(`</${tool.name}>`)
  return lines.join("\n")
}

/** A stand-in value for a required parameter without an example, chosen from its schema. */
function placeholder(schema: JsonSchema | undefined): string {
  if (schema === undefined) return "..."
  if (Array.isArray(schema.enum) && schema.enum.length > 0) {
    const first = schema.enum[0]
    return typeof first === "string" ? first : JSON.stringify(first)
  }
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type
  switch (type) {
    case "object":
      return "{}"
    case "array":
      return "[]"
    case "number":
    case "integer":
      return "0"
    case "boolean":
      return "true"
    default:
      return "..."
  }
}
