import { createHash } from "node:crypto"
import type { McpServerInfo, McpToolInfo } from "../context/prompt-context.js"
import { type Diagnostic, diagnostic } from "../diagnostics.js"
import { BUILTIN_TOOL_IDS } from "./catalog/index.js"
import type { JsonSchema, ParameterSpec, ToolSpec } from "./spec.js"

// MCP server tools as tool specs of kind "mcp", exposed under names every provider accepts.

/** The longest tool name every provider accepts. */
export const MAX_TOOL_NAME_LENGTH = 64

/** What a tool name may consist of, for every provider. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/

const HASH_LENGTH = 8
const SNIPPET_LENGTH = 100

/** Options of mcpToolSpecs. */
export interface McpToolSpecsOptions {
  /** Names already taken (built-in tool ids and renames). Default: the built-in tool ids. */
  reserved?: Iterable<string>
}

/** The MCP tools as specs, sorted by name, and what happened to tools that could not be offered as they are. */
export interface McpToolSpecs {
  specs: ToolSpec[]
  diagnostics: Diagnostic[]
}

interface Entry {
  server: string
  tool: McpToolInfo
  /** `mcp__<server>__<tool>` with invalid characters replaced. */
  candidate: string
  /** True when sanitizing changed nothing. */
  exact: boolean
}

/** Replaces every character outside [a-zA-Z0-9_-] with "_" (one per code point). */
export function sanitizeToolName(text: string): string {
  let out = ""
  for (const ch of text) out += /^[a-zA-Z0-9_-]$/.test(ch) ? ch : "_"
  return out
}

/** The name an MCP tool gets when nothing collides and it is short enough: `mcp__<server>__<tool>`, sanitized. */
export function mcpToolName(server: string, tool: string): string {
  return `mcp__${sanitizeToolName(server)}__${sanitizeToolName(tool)}`
}

const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

function shortHash(server: string, tool: string, length: number): string {
  return createHash("sha256").update(`${server}\u0000${tool}`).digest("hex").slice(0, length)
}

/** `candidate` cut to fit, then `_` and a hash of the server and tool: stable, and different for different tools. */
function hashedName(entry: Entry, length: number): string {
  const suffix = `_${shortHash(entry.server, entry.tool.name, length)}`
  return entry.candidate.slice(0, MAX_TOOL_NAME_LENGTH - suffix.length) + suffix
}

/**
 * Turns the tools of MCP server snapshots into tool specs of kind "mcp" with names valid for every provider
 * (at most 64 of [a-zA-Z0-9_-]), unique among themselves and against `reserved`. Names are
 * `mcp__<server>__<tool>`; a name that had to be sanitized and collides, or is too long, gets a short hash
 * suffix. Tools that cannot be offered are reported as diagnostics, never dropped silently.
 */
export function mcpToolSpecs(servers: readonly McpServerInfo[], options: McpToolSpecsOptions = {}): McpToolSpecs {
  const diagnostics: Diagnostic[] = []
  const reserved = new Set(options.reserved ?? BUILTIN_TOOL_IDS)
  const entries = collect(servers, diagnostics)

  // Plain names first: a candidate that is short enough, not reserved, and claimed by one tool only (or by
  // exactly one tool whose name needed no sanitizing, which then keeps it).
  const groups = new Map<string, Entry[]>()
  for (const entry of entries) groups.set(entry.candidate, [...(groups.get(entry.candidate) ?? []), entry])
  const names = new Map<Entry, string>()
  const used = new Set<string>(reserved)
  for (const [candidate, group] of [...groups].sort(([a], [b]) => byText(a, b))) {
    if (candidate.length > MAX_TOOL_NAME_LENGTH || reserved.has(candidate)) continue
    const exact = group.filter((e) => e.exact)
    const owner = group.length === 1 ? group[0] : exact.length === 1 ? exact[0] : undefined
    if (owner) {
      names.set(owner, candidate)
      used.add(candidate)
    }
  }
  // Then hashed names, in sorted order, lengthening the hash in the (unlikely) event of a clash.
  for (const entry of entries) {
    if (names.has(entry)) continue
    let length = HASH_LENGTH
    let name = hashedName(entry, length)
    while (used.has(name) && length < 32) {
      length += 4
      name = hashedName(entry, length)
    }
    if (used.has(name)) {
      diagnostics.push(
        diagnostic(
          "error",
          "mcp-tool-unnamed",
          `MCP tool "${entry.tool.name}" of server "${entry.server}" is not offered: no unique name was found`,
        ),
      )
      continue
    }
    names.set(entry, name)
    used.add(name)
    const why =
      entry.candidate.length > MAX_TOOL_NAME_LENGTH
        ? `"${entry.candidate}" is longer than ${MAX_TOOL_NAME_LENGTH} characters`
        : reserved.has(entry.candidate)
          ? `"${entry.candidate}" is taken by another tool`
          : `"${entry.candidate}" is shared by tools whose names differ only in characters providers do not accept`
    diagnostics.push(
      diagnostic(
        "info",
        "mcp-tool-renamed",
        `MCP tool "${entry.tool.name}" of server "${entry.server}" is offered as "${name}": ${why}`,
      ),
    )
  }

  const specs: ToolSpec[] = []
  for (const entry of entries) {
    const name = names.get(entry)
    if (name === undefined) continue
    const spec = toSpec(entry, name, diagnostics)
    if (spec) specs.push(spec)
  }
  specs.sort((a, b) => byText(a.id, b.id))
  return { specs, diagnostics }
}

/** Every named tool of every server, sorted by server then tool; duplicates and nameless tools become diagnostics. */
function collect(servers: readonly McpServerInfo[], diagnostics: Diagnostic[]): Entry[] {
  const seen = new Set<string>()
  const entries: Entry[] = []
  for (const server of servers) {
    for (const tool of server.tools) {
      if (!server.name || !tool.name) {
        diagnostics.push(
          diagnostic(
            "error",
            "mcp-tool-unnamed",
            `an MCP tool of server "${server.name}" is not offered: ${server.name ? "the tool" : "the server"} has no name`,
          ),
        )
        continue
      }
      const key = `${server.name}\u0000${tool.name}`
      if (seen.has(key)) {
        diagnostics.push(
          diagnostic(
            "warning",
            "mcp-tool-duplicate",
            `MCP tool "${tool.name}" of server "${server.name}" is listed more than once; only the first is offered`,
          ),
        )
        continue
      }
      seen.add(key)
      const candidate = mcpToolName(server.name, tool.name)
      const exact = candidate === `mcp__${server.name}__${tool.name}`
      entries.push({ server: server.name, tool, candidate, exact })
    }
  }
  return entries.sort((a, b) => byText(a.server, b.server) || byText(a.tool.name, b.tool.name))
}

function toSpec(entry: Entry, name: string, diagnostics: Diagnostic[]): ToolSpec | undefined {
  const where = `MCP tool "${entry.tool.name}" of server "${entry.server}"`
  const root = (entry.tool.inputSchema ?? {}) as JsonSchema
  const type = root.type
  if (type !== undefined && type !== "object") {
    diagnostics.push(
      diagnostic(
        "error",
        "mcp-tool-bad-schema",
        `${where} is not offered: its input schema has type ${JSON.stringify(type)}, not "object"`,
      ),
    )
    return undefined
  }
  const issues: string[] = []
  const properties = isRecord(root.properties) ? root.properties : {}
  const required = new Set(Array.isArray(root.required) ? root.required.filter((r) => typeof r === "string") : [])
  const parameters: Record<string, ParameterSpec> = {}
  for (const [param, raw] of Object.entries(properties)) {
    const schema = inlineLocalRefs(isRecord(raw) ? (raw as JsonSchema) : {}, root, issues)
    const spec: ParameterSpec = { schema }
    if (required.has(param)) spec.required = true
    const example = exampleOf(schema)
    if (example !== undefined) spec.example = example
    parameters[param] = spec
  }
  for (const issue of [...new Set(issues)]) {
    diagnostics.push(diagnostic("warning", "mcp-schema-ref", `${where}: ${issue}; treated as any value`))
  }
  const description =
    entry.tool.description?.trim() || `The tool "${entry.tool.name}" of the MCP server "${entry.server}".`
  return {
    id: name,
    kind: "mcp",
    description,
    snippet: snippetOf(description),
    parameters,
    external: true,
    mcp: { server: entry.server, tool: entry.tool.name },
  }
}

/** The first sentence or line of a description, at most SNIPPET_LENGTH characters. */
function snippetOf(description: string): string {
  const line = description.split("\n", 1)[0]?.trim() ?? ""
  const sentence = /^(.+?[.!?])(\s|$)/.exec(line)?.[1] ?? line
  return sentence.length <= SNIPPET_LENGTH ? sentence : `${sentence.slice(0, SNIPPET_LENGTH - 1).trimEnd()}…`
}

/** An example value from the schema's own `examples` or `default`, as the XML dialect writes it. */
function exampleOf(schema: JsonSchema): string | undefined {
  const examples = schema.examples
  const value = Array.isArray(examples) && examples.length > 0 ? examples[0] : schema.default
  if (value === undefined) return undefined
  return typeof value === "string" ? value : JSON.stringify(value)
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
}

/** Keywords whose values are data, not schemas: never searched for references. */
const LITERAL_KEYWORDS = new Set(["enum", "const", "default", "examples", "example"])

/**
 * A parameter's schema with local references (`#/$defs/X`, `#/definitions/X`) replaced by what they point to,
 * so the schema stands on its own once split from its root. A recursive or unresolvable reference becomes `{}`
 * (any value) and is reported in `issues`.
 */
function inlineLocalRefs(schema: JsonSchema, root: JsonSchema, issues: string[]): JsonSchema {
  const walk = (value: unknown, path: string[]): unknown => {
    if (Array.isArray(value)) return value.map((item) => walk(item, path))
    if (!isRecord(value)) return value
    const ref = value.$ref
    if (typeof ref === "string") {
      const { $ref: _ref, ...siblings } = value
      const target = ref.startsWith("#") ? resolvePointer(root, ref.slice(1)) : undefined
      if (target === undefined || path.includes(ref)) {
        issues.push(`${target === undefined ? "unresolved" : "recursive"} reference ${ref}`)
        return walk(siblings, path)
      }
      return { ...(walk(target, [...path, ref]) as Record<string, unknown>), ...(walk(siblings, path) as object) }
    }
    const out: Record<string, unknown> = {}
    for (const [key, child] of Object.entries(value))
      out[key] = LITERAL_KEYWORDS.has(key) ? structuredClone(child) : walk(child, path)
    return out
  }
  return walk(schema, []) as JsonSchema
}

/** Follows a JSON Pointer (`/$defs/Node`) inside `root`. */
function resolvePointer(root: unknown, pointer: string): unknown {
  if (pointer === "") return root
  if (!pointer.startsWith("/")) return undefined
  let value: unknown = root
  for (const raw of pointer.slice(1).split("/")) {
    const key = raw.replaceAll("~1", "/").replaceAll("~0", "~")
    if (Array.isArray(value)) value = value[Number(key)]
    else if (isRecord(value) && Object.hasOwn(value, key)) value = value[key]
    else return undefined
  }
  return value
}
