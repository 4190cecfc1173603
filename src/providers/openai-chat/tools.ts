/**
 * Chat Completions tools both ways: enabled tools as `{type: "function", function}` entries (the conversion lives
 * in tools/native.ts, because the prompt builder hashes native tools before any request exists and sits above this
 * layer), and the inverse: a client's declared tools and tool choice read back as `client` tools.
 */

import type { EnabledTool, JsonSchema } from "../../tools/spec.js"
import { clientTool } from "../client-tool.js"
import { ProviderError } from "../errors.js"
import { obj, str } from "../stream.js"
import type { ToolChoice } from "../types.js"

export { toOpenAIChatTools } from "../../tools/native.js"

/** Where a decoder notes what it read without modeling it. */
export interface UnmodeledSink {
  unmodeled: string[]
}

/** A `ProviderError("invalid-request")` that names the JSON path at fault. */
export function invalidAt(path: string, what: string): ProviderError {
  return new ProviderError("invalid-request", `${path}: ${what}`, { status: 400 })
}

/** One declared function as a client tool: id = name, the schema as parameters, nothing promptline adds. */
export function chatClientTool(name: string, description: string, schema: unknown): EnabledTool {
  const given = obj(schema) ?? {}
  const properties = (obj(given.properties) ?? {}) as Record<string, JsonSchema>
  const required = Array.isArray(given.required) ? given.required.filter((r): r is string => typeof r === "string") : []
  return clientTool(name, description, { ...(given as JsonSchema), type: "object", properties, required })
}

/**
 * The `tools` of a Chat body (and the legacy `functions`) as client tools. Function tools are read; custom tools
 * and any other kind, and `strict` (the schema a strict tool was rewritten to cannot be undone), are unmodeled.
 */
export function fromOpenAIChatTools(body: Record<string, unknown>, sink: UnmodeledSink): EnabledTool[] {
  const out: EnabledTool[] = []
  if (body.tools !== undefined && body.tools !== null) {
    if (!Array.isArray(body.tools)) throw invalidAt("tools", "must be a list")
    body.tools.forEach((entry, i) => {
      const tool = obj(entry)
      if (!tool) throw invalidAt(`tools[${i}]`, "must be an object")
      if (tool.type !== "function") {
        sink.unmodeled.push(`tools[${i}]`)
        return
      }
      const fn = obj(tool.function)
      const name = str(fn?.name)
      if (!fn || !name) throw invalidAt(`tools[${i}].function.name`, "a function name is required")
      for (const key of Object.keys(fn))
        if (!FUNCTION_FIELDS.has(key) && !(key === "strict" && fn.strict !== true))
          sink.unmodeled.push(`tools[${i}].function.${key}`)
      out.push(chatClientTool(name, str(fn.description) ?? "", fn.parameters))
    })
  }
  if (body.functions !== undefined && body.functions !== null) {
    if (!Array.isArray(body.functions)) throw invalidAt("functions", "must be a list")
    body.functions.forEach((entry, i) => {
      const fn = obj(entry)
      const name = str(fn?.name)
      if (!fn || !name) throw invalidAt(`functions[${i}].name`, "a function name is required")
      out.push(chatClientTool(name, str(fn.description) ?? "", fn.parameters))
    })
  }
  return out
}

/** The function fields a client tool keeps (`strict: false` is the default and changes nothing). */
const FUNCTION_FIELDS = new Set(["name", "description", "parameters"])

/**
 * `tool_choice` (or the legacy `function_call`) as a tool choice: `auto`, `none`, `required`, or one named
 * function. Allowed-tools lists and custom tools are unmodeled.
 */
export function fromChatToolChoice(body: Record<string, unknown>, sink: UnmodeledSink): ToolChoice | undefined {
  const field = body.tool_choice !== undefined && body.tool_choice !== null ? "tool_choice" : "function_call"
  const value = body[field]
  if (value === undefined || value === null) return undefined
  if (value === "auto" || value === "none" || (value === "required" && field === "tool_choice")) return value
  const choice = obj(value)
  const name = field === "tool_choice" ? str(obj(choice?.function)?.name) : str(choice?.name)
  if (choice && name && (field === "function_call" || choice.type === "function")) return { name }
  if (typeof value === "string" || !choice) throw invalidAt(field, `unknown tool choice ${JSON.stringify(value)}`)
  sink.unmodeled.push(field)
  return undefined
}
