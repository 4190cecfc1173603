import type { PromptContext } from "../context/prompt-context.js"

/**
 * What a tool does, independent of its name. Templates and components refer to tools by kind
 * (`tools.by_kind.read`), so renaming or swapping a tool never leaves a stale mention.
 */
export type ToolKind =
  | "execute"
  | "read"
  | "write"
  | "edit"
  | "search"
  | "list"
  | "definitions"
  | "browse"
  | "fetch"
  | "web_search"
  | "mcp_call"
  | "mcp_resource"
  | "ask"
  | "complete"
  | "new_task"
  | "plan_respond"
  | "act_respond"
  | "skill"
  | "subagents"
  /** A tool served by an MCP server, exposed directly under its own name. */
  | "mcp"
  /** Searches the deferred tools (tool search). */
  | "tool_search"
  /** Calls a deferred tool by name (tool search). */
  | "tool_call"
  /** A tool the client application defines and runs itself (decoded from a request the gateway received). */
  | "client"

/** The JSON Schema subset tool parameters use. Unknown keywords pass through untouched. */
export interface JsonSchema {
  type?: string | string[]
  description?: string
  properties?: Record<string, JsonSchema>
  items?: JsonSchema
  required?: string[]
  enum?: unknown[]
  default?: unknown
  additionalProperties?: boolean | JsonSchema
  [keyword: string]: unknown
}

/** What a gate sees: the context, the chosen variant, and the kinds of the tools enabled so far. */
export interface GateInput {
  context: PromptContext
  variant: string
  /** Kinds of the enabled tools. Complete when parameter gates run; partial during tool gating. */
  kinds: ReadonlySet<ToolKind>
}

/** A predicate over the build input; a spec is shown only when its gate holds. */
export type Gate = (input: GateInput) => boolean

/** One parameter of a tool. Its JSON Schema carries the description shown to the model. */
export interface ParameterSpec {
  schema: JsonSchema
  required?: boolean
  /** Shown only when this holds. */
  when?: Gate
  /** Shown only when a tool of this kind is enabled (a parameter that depends on another tool). */
  requiresKind?: ToolKind
  /** Value used in the XML usage example. */
  example?: string
}

/** A per-variant patch: replaces text, adds or removes parameters (null removes). */
export interface ToolPatch {
  description?: string
  snippet?: string
  guidelines?: string[]
  parameters?: Record<string, ParameterSpec | null>
  /** Renames parameters for this variant (canonical name → name the model sees); `params.<kind>.<canonical>` follows. */
  parameterNames?: Record<string, string>
}

/** A tool declared once; every dialect (XML docs, each provider's native definition) derives from it. */
export interface ToolSpec {
  /** Stable identifier, also the default name: `read_file`. */
  id: string
  kind: ToolKind
  /**
   * What the tool does, for the model. Built-in descriptions are templates (`${{ tools.by_kind.read }}`
   * resolves to the enabled read tool's name); text from MCP servers is data and never evaluated.
   */
  description: string
  /** One line for compact tool lists. */
  snippet: string
  /** Advice specific to this tool, added to the guidelines when it is enabled. */
  guidelines?: string[]
  /** Parameters in display order. */
  parameters: Record<string, ParameterSpec>
  /** The tool is enabled only when this holds. */
  when?: Gate
  /** Patches keyed by variant id. */
  variants?: Record<string, ToolPatch>
  /** True for specs made from external data (MCP servers): descriptions are not templates. */
  external?: boolean
  /** For MCP tools: the server and the tool's own name there. */
  mcp?: { server: string; tool: string }
  /**
   * Tool search: `true` lets the tool be left out of the tool list (found and called through the search
   * tools) when the definitions are large; `false` pins it as always loaded. Default: true for MCP tools.
   */
  defer?: boolean
}

/** Declares a tool spec (identity function that checks the shape at compile time). */
export function defineTool(spec: ToolSpec): ToolSpec {
  return spec
}

/** A tool as the model will see it: renamed, patched for the variant, with gated parameters resolved. */
export interface EnabledTool {
  id: string
  kind: ToolKind
  /** The name the model calls (after renames). */
  name: string
  description: string
  snippet: string
  guidelines: string[]
  /** JSON Schema of the arguments: `{ type: "object", properties, required }`. */
  parameters: JsonSchema & { type: "object"; properties: Record<string, JsonSchema>; required: string[] }
  /** Example values for the XML usage example, by parameter name. */
  examples: Record<string, string>
  mcp?: { server: string; tool: string }
}
