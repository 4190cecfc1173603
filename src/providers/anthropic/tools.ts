/**
 * Anthropic tool definitions and tool choice, both ways: promptline's tools and choice as `tools` entries and
 * `tool_choice`, and a client's `tools` and `tool_choice` read back as client tools and options.
 */

import { toAnthropicTools } from "../../tools/native.js"
import type { EnabledTool } from "../../tools/spec.js"
import { isPlaceholderTool } from "../carried.js"
import { clientTool } from "../client-tool.js"
import { ProviderError } from "../errors.js"
import { obj, str } from "../stream.js"
import type { EncodeOptions, ToolChoice } from "../types.js"
import type { AnthropicToolChoice } from "./wire-types.js"

/**
 * The enabled tools as `tools` entries. The conversion itself stays in tools/native.ts: the prompt builder
 * (a layer above providers) hashes native definitions before any request exists (docs/decisions.md).
 */
export { toAnthropicTools }

/** Anthropic's server-side tool search over tools sent with `defer_loading` (BM25 variant). */
export const ANTHROPIC_TOOL_SEARCH = { type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25" } as const

/** Anthropic's server-side tool search with regular expressions. */
export const ANTHROPIC_REGEX_TOOL_SEARCH = {
  type: "tool_search_tool_regex_20251119",
  name: "tool_search_tool_regex",
} as const

/** The tool search variant each type of Anthropic's search tool stands for (dated and undated spellings). */
const SEARCH_TYPES: Readonly<Record<string, "bm25" | "regex">> = {
  tool_search_tool_bm25_20251119: "bm25",
  tool_search_tool_bm25: "bm25",
  tool_search_tool_regex_20251119: "regex",
  tool_search_tool_regex: "regex",
}

/** Keys of a custom tool definition that promptline models (`cache_control` is read as a cache breakpoint). */
const TOOL_KEYS = new Set(["type", "name", "description", "input_schema", "cache_control", "defer_loading"])

/** The tools of a request, read back: client tools, deferred tools, the search over them, and what is not modeled. */
export interface DecodedTools {
  tools: EnabledTool[]
  /** Tools sent with `defer_loading: true`, and placeholder tools (a description that says never to call it). */
  deferredTools: EnabledTool[]
  /** The path of each deferred tool, in the order of `deferredTools`. */
  deferredPaths: string[]
  /** The search over the deferred tools: Anthropic's BM25 or regex tool, or the client's own (`client`). */
  nativeToolSearch?: "bm25" | "regex" | "client"
  /** The path of Anthropic's search tool, when the request has one. */
  searchPath?: string
  /** JSON paths of server tools and of tool fields promptline does not model. */
  unmodeled: string[]
}

/**
 * A client's `tools` as client tools: custom tools are read, Anthropic's tool search tools are the search over the
 * deferred ones, other server tools and extra fields are listed as unmodeled. A tool with `defer_loading: true`
 * and a placeholder tool are deferred: an upstream that cannot defer never offers them.
 */
export function fromAnthropicTools(value: unknown, path = "tools"): DecodedTools {
  const out: DecodedTools = { tools: [], deferredTools: [], deferredPaths: [], unmodeled: [] }
  if (value === undefined) return out
  if (!Array.isArray(value)) throw invalid(`${path}: must be a list of tools`)
  value.forEach((entry, i) => {
    const at = `${path}[${i}]`
    const tool = obj(entry)
    if (!tool) throw invalid(`${at}: a tool must be an object`)
    const type = tool.type
    const search = typeof type === "string" ? SEARCH_TYPES[type] : undefined
    if (search !== undefined && out.nativeToolSearch === undefined) {
      out.nativeToolSearch = search
      out.searchPath = at
      for (const key of Object.keys(tool))
        if (!["type", "name", "cache_control"].includes(key)) out.unmodeled.push(`${at}.${key}`)
      return
    }
    if (type !== undefined && type !== null && type !== "custom") {
      // Server tools (web search, code execution, …) and Anthropic-defined client tools (bash, text editor, …).
      out.unmodeled.push(at)
      return
    }
    const name = str(tool.name)
    if (name === undefined || name === "") throw invalid(`${at}.name: a tool name is required`)
    const schema = obj(tool.input_schema)
    if (!schema) throw invalid(`${at}.input_schema: a JSON schema object is required`)
    for (const key of Object.keys(tool))
      if (!TOOL_KEYS.has(key) && tool[key] !== null) out.unmodeled.push(`${at}.${key}`)
    const decoded = anthropicClientTool(name, str(tool.description) ?? "", schema)
    if (tool.defer_loading === true || isPlaceholderTool(decoded)) {
      out.deferredTools.push(decoded)
      out.deferredPaths.push(at)
    } else out.tools.push(decoded)
  })
  if (out.deferredTools.length > 0) out.nativeToolSearch ??= "client"
  return out
}

/** A tool the client defines and runs, as promptline's tool type: the schema kept as it came. */
export function anthropicClientTool(name: string, description: string, schema: Record<string, unknown>): EnabledTool {
  return clientTool(name, description, { ...schema } as EnabledTool["parameters"])
}

/** The `tool_choice` of a request for promptline's tool choice and parallel-call setting. */
export function toAnthropicToolChoice(options: EncodeOptions): AnthropicToolChoice | undefined {
  const parallel = options.parallelToolCalls === false ? { disable_parallel_tool_use: true } : {}
  const choice = options.toolChoice
  if (choice === undefined) return options.parallelToolCalls === false ? { type: "auto", ...parallel } : undefined
  if (choice === "none") return { type: "none" }
  if (choice === "auto") return { type: "auto", ...parallel }
  if (choice === "required") return { type: "any", ...parallel }
  return { type: "tool", name: choice.name, ...parallel }
}

/** A client's `tool_choice` read back: the choice and whether parallel calls were turned off. */
export function fromAnthropicToolChoice(
  value: unknown,
  path = "tool_choice",
): { toolChoice?: ToolChoice; parallelToolCalls?: boolean } {
  if (value === undefined || value === null) return {}
  const choice = obj(value)
  if (!choice) throw invalid(`${path}: must be an object with a type`)
  const parallel = choice.disable_parallel_tool_use === true ? { parallelToolCalls: false } : {}
  switch (choice.type) {
    case "auto":
      return { toolChoice: "auto", ...parallel }
    case "any":
      return { toolChoice: "required", ...parallel }
    case "none":
      return { toolChoice: "none" }
    case "tool": {
      const name = str(choice.name)
      if (!name) throw invalid(`${path}.name: the tool to call is required`)
      return { toolChoice: { name }, ...parallel }
    }
    default:
      throw invalid(`${path}.type: must be "auto", "any", "tool" or "none"`)
  }
}

function invalid(message: string): ProviderError {
  return new ProviderError("invalid-request", message, { status: 400 })
}
