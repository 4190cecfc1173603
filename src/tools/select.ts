import type { PromptContext } from "../context/prompt-context.js"
import { type Diagnostic, diagnostic } from "../diagnostics.js"
import type { EnabledTool, GateInput, JsonSchema, ParameterSpec, ToolKind, ToolSpec } from "./spec.js"

/**
 * Tool selection: which tool specs a build offers, in which order, under which names.
 *
 * Order (stable, documented): built-in tools in catalog order, then MCP server tools sorted by name.
 * A tool is offered when the variant lists it (or the context includes it), the context does not
 * exclude it, and its gate holds. Parameter gates see the complete set of enabled kinds.
 */

/** What selection needs besides the context. */
export interface SelectInput {
  context: PromptContext
  variant: { id: string; tools: readonly string[]; mcpTools: boolean }
  /** Built-in specs in catalog order. */
  builtins: readonly ToolSpec[]
  /** Specs made from the context's MCP servers, sorted by name. */
  mcp: readonly ToolSpec[]
}

/** A spec chosen for the build, patched for the variant and renamed, not yet rendered. */
export interface SelectedTool {
  spec: ToolSpec
  /** Canonical parameter name → the name the model sees. */
  parameterNames: Record<string, string>
  name: string
  description: string
  snippet: string
  guidelines: string[]
  parameters: Record<string, ParameterSpec>
}

export interface Selection {
  tools: SelectedTool[]
  /** The name of the first enabled tool of each kind, and "" for every kind without one. */
  byKind: Record<ToolKind, string>
  /** Parameter names by kind and canonical name, after variant patches: `params.read.path`. */
  params: Record<string, Record<string, string>>
  diagnostics: Diagnostic[]
}

const ALL_KINDS: readonly ToolKind[] = [
  "execute",
  "read",
  "write",
  "edit",
  "search",
  "list",
  "definitions",
  "browse",
  "fetch",
  "web_search",
  "mcp_call",
  "mcp_resource",
  "ask",
  "complete",
  "new_task",
  "plan_respond",
  "act_respond",
  "skill",
  "subagents",
  "mcp",
  "tool_search",
  "tool_call",
  "client",
]

function applyPatch(spec: ToolSpec, variant: string): Omit<SelectedTool, "name"> {
  const patch = spec.variants?.[variant]
  const parameters: Record<string, ParameterSpec> = { ...spec.parameters }
  for (const [name, param] of Object.entries(patch?.parameters ?? {})) {
    if (param === null) delete parameters[name]
    else parameters[name] = param
  }
  const parameterNames = Object.fromEntries(Object.keys(parameters).map((p) => [p, patch?.parameterNames?.[p] ?? p]))
  return {
    spec,
    parameterNames,
    description: patch?.description ?? spec.description,
    snippet: patch?.snippet ?? spec.snippet,
    guidelines: patch?.guidelines ?? spec.guidelines ?? [],
    parameters,
  }
}

/** Chooses, orders, patches and renames the tools of a build. */
export function selectTools(input: SelectInput): Selection {
  const { context, variant } = input
  const diagnostics: Diagnostic[] = []
  const include = new Set(context.tools?.include ?? [])
  const exclude = new Set(context.tools?.exclude ?? [])
  const rename = context.tools?.rename ?? {}
  const known = new Set([...input.builtins.map((s) => s.id), ...input.mcp.map((s) => s.id)])
  for (const id of [...include, ...exclude, ...Object.keys(rename)].sort()) {
    if (!known.has(id))
      diagnostics.push(diagnostic("warning", "unknown-tool", `no tool "${id}" to include, exclude or rename`))
  }

  const offered = new Set(variant.tools)
  const candidates = [
    ...input.builtins.filter((s) => offered.has(s.id) || include.has(s.id)),
    ...input.mcp.filter(() => variant.mcpTools),
    ...input.mcp.filter((s) => !variant.mcpTools && include.has(s.id)),
  ]

  const kinds = new Set<ToolKind>()
  const gate: GateInput = { context, variant: variant.id, kinds }
  const chosen: ToolSpec[] = []
  const names = new Set<string>()
  for (const spec of candidates) {
    if (exclude.has(spec.id)) continue
    // A name clash drops the tool before its kind counts, so no gate relies on a tool that is not offered.
    const name = rename[spec.id] ?? spec.id
    if (names.has(name)) {
      diagnostics.push(
        diagnostic("error", "tool-name-collision", `tool "${spec.id}" cannot be named "${name}": the name is taken`),
      )
      continue
    }
    if (spec.when && !spec.when(gate)) {
      if (include.has(spec.id))
        diagnostics.push(
          diagnostic("info", "tool-gated", `tool "${spec.id}" is included but its prerequisite is missing`),
        )
      continue
    }
    names.add(name)
    chosen.push(spec)
    kinds.add(spec.kind)
  }

  const tools: SelectedTool[] = []
  for (const spec of chosen) {
    const patched = applyPatch(spec, variant.id)
    for (const [name, param] of Object.entries(patched.parameters)) {
      const shown = (!param.when || param.when(gate)) && (!param.requiresKind || kinds.has(param.requiresKind))
      if (!shown) {
        delete patched.parameters[name]
        delete patched.parameterNames[name]
      }
    }
    tools.push({ ...patched, name: rename[spec.id] ?? spec.id })
  }

  const byKind = Object.fromEntries(ALL_KINDS.map((k) => [k, ""])) as Record<ToolKind, string>
  const params: Record<string, Record<string, string>> = {}
  for (const tool of tools) {
    if (byKind[tool.spec.kind] === "") {
      byKind[tool.spec.kind] = tool.name
      params[tool.spec.kind] = tool.parameterNames
    }
  }
  return { tools, byKind, params, diagnostics }
}

/** The JSON Schema of a tool's arguments, derived from its parameter specs. */
export function parametersSchema(tool: Pick<SelectedTool, "parameters" | "parameterNames">): EnabledTool["parameters"] {
  const properties: Record<string, JsonSchema> = {}
  const required: string[] = []
  for (const [canonical, param] of Object.entries(tool.parameters)) {
    const name = tool.parameterNames[canonical] ?? canonical
    properties[name] = param.schema
    if (param.required) required.push(name)
  }
  return { type: "object", properties, required }
}

/** Example values for the XML usage example, by parameter name. */
export function parameterExamples(tool: Pick<SelectedTool, "parameters" | "parameterNames">): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [canonical, param] of Object.entries(tool.parameters))
    if (param.example !== undefined) out[tool.parameterNames[canonical] ?? canonical] = param.example
  return out
}
