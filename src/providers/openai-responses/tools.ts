/**
 * OpenAI Responses tools both ways: enabled tools as the request's function tool entries, and a client's
 * `tools` and `tool_choice` read back into enabled tools of kind `client` and a tool choice. Hosted tools (web
 * search, file search, MCP, custom and namespaced tools, …) have no enabled-tool form and are named as unmodeled.
 */

import type { ResponsesFunctionTool } from "../../tools/native-types.js"
import type { EnabledTool, JsonSchema } from "../../tools/spec.js"
import { isPlaceholderTool } from "../carried.js"
import { clientTool } from "../client-tool.js"
import { ProviderError } from "../errors.js"
import { obj, str } from "../stream.js"
import type { ToolChoice } from "../types.js"

export type { ResponsesFunctionTool }

const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T

/** The way out: the tools layer writes the Responses shape (the prompt builder needs it too). */
export { toOpenAIResponsesTools } from "../../tools/native.js"

/** The client tools a request declares, and the paths of the entries promptline does not model. */
export interface DecodedTools {
  tools: EnabledTool[]
  /** Function tools sent with `defer_loading: true` (found through tool search), and placeholder tools. */
  deferredTools: EnabledTool[]
  /** The path of each deferred tool, in the order of `deferredTools`. */
  deferredPaths: string[]
  unmodeled: string[]
}

/** Keys of a function tool that promptline models (`strict: false` and `defer_loading` are read too). */
const FUNCTION_KEYS = new Set(["type", "name", "description", "parameters", "defer_loading"])

/**
 * Reads a request's `tools`: each function tool becomes an enabled tool of kind `client` (id = name, its JSON
 * schema as parameters, as given); one with `defer_loading: true`, or a placeholder, is deferred. Every other
 * entry, other keys, and `strict: true` (promptline sends tools non-strict), are named as unmodeled. A function
 * tool without a name is refused.
 */
export function fromOpenAIResponsesTools(value: unknown, path = "tools"): DecodedTools {
  const out: DecodedTools = { tools: [], deferredTools: [], deferredPaths: [], unmodeled: [] }
  if (value === undefined || value === null) return out
  if (!Array.isArray(value)) throw new ProviderError("invalid-request", `${path}: must be a list of tools`)
  value.forEach((entry, i) => {
    const tool = obj(entry)
    if (!tool) throw new ProviderError("invalid-request", `${path}[${i}]: must be a tool object`)
    if (tool.type !== "function") {
      out.unmodeled.push(`${path}[${i}]`)
      return
    }
    const name = str(tool.name)
    if (!name) throw new ProviderError("invalid-request", `${path}[${i}].name: a function tool needs a name`)
    for (const key of Object.keys(tool))
      if (!FUNCTION_KEYS.has(key) && tool[key] != null && !(key === "strict" && tool.strict === false))
        out.unmodeled.push(`${path}[${i}].${key}`)
    const decoded = responsesClientTool(name, str(tool.description) ?? "", tool.parameters)
    if (tool.defer_loading === true || isPlaceholderTool(decoded)) {
      out.deferredTools.push(decoded)
      out.deferredPaths.push(`${path}[${i}]`)
    } else out.tools.push(decoded)
  })
  return out
}

/** An enabled tool of kind `client`: a tool the client declared and runs itself. */
export function responsesClientTool(name: string, description: string, parameters: unknown): EnabledTool {
  // The schema is kept as the client wrote it (so it goes out again unchanged); no schema means no arguments.
  const schema = obj(parameters) ?? { type: "object", properties: {}, required: [] }
  return clientTool(name, description, clone(schema) as JsonSchema as EnabledTool["parameters"])
}

/** Reads `tool_choice`: the three modes and a named function; any other form is unmodeled (`undefined`). */
export function fromResponsesToolChoice(value: unknown): ToolChoice | undefined {
  if (value === "auto" || value === "none" || value === "required") return value
  const choice = obj(value)
  const name = str(choice?.name)
  if (choice?.type === "function" && name) return { name }
  return undefined
}
