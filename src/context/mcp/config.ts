import { isAbsolute, join, resolve } from "node:path"
import type * as Jsonc from "jsonc-parser"
import type { ParseError } from "jsonc-parser"
import { type Diagnostic, diagnostic } from "../../diagnostics.js"
import { fieldIssues, issuesLine } from "../../field-issues.js"
import { describeSyntaxError } from "../../json-syntax.js"
import { lazyModule, lazyValue } from "../../lazy-module.js"
import { readTextFile } from "../instructions/read.js"
import { LinkGuard, linkDiagnostic } from "../link-guard.js"
import { promptlineUserDir, type UserRoot } from "../user-roots.js"
import { type ExpandVars, expandVars } from "./expand.js"

/** jsonc-parser (CommonJS), required on first use: importing this module loads nothing. */
const jsonc = lazyModule<typeof Jsonc>("jsonc-parser")

/** The config file formats promptline reads MCP servers from; all share the `mcpServers` map. */
export type McpConfigFormat = "promptline" | "claude" | "cursor" | "cline"

/** One MCP server to connect to, normalized from any config format. */
export interface McpServerConfig {
  name: string
  /** Display path of the config file that declares it. */
  source: string
  format: McpConfigFormat
  scope: "user" | "project"
  /** `url` given without a type: streamable HTTP first, then the older SSE transport. */
  transport: "stdio" | "http" | "sse" | "url"
  command?: string
  args: string[]
  env: Record<string, string>
  /** Working folder for a stdio server (absolute). */
  cwd?: string
  url?: string
  headers: Record<string, string>
  disabled: boolean
  /** Connection timeout for this server, from promptline's own config. */
  timeoutMs?: number
  /** The config file `timeoutMs` was set in (its own entry, or a `timeout`-only entry in promptline's own file). */
  timeoutSource?: string
}

/** A config file to read. */
export interface McpConfigSource {
  abs: string
  format: McpConfigFormat
  scope: "user" | "project"
}

/** zod, loaded with the first config file read. */
const zod = lazyModule<typeof import("zod")>("zod")
/** A server entry as the config files write it (other fields pass through). */
const serverSchema = lazyValue(() => {
  const { z } = zod()
  return z
    .object({
      type: z.string().optional(),
      transportType: z.string().optional(),
      command: z.string().min(1).optional(),
      args: z.array(z.string()).optional(),
      env: z.record(z.string(), z.string()).optional(),
      cwd: z.string().optional(),
      url: z.string().min(1).optional(),
      headers: z.record(z.string(), z.string()).optional(),
      disabled: z.boolean().optional(),
      timeout: z.number().positive().optional(),
    })
    .passthrough()
})

const TRANSPORTS: Record<string, McpServerConfig["transport"]> = {
  stdio: "stdio",
  http: "http",
  streamableHttp: "http",
  "streamable-http": "http",
  streamable_http: "http",
  sse: "sse",
}

/** The config files to read, most specific first (the first server of a name wins). */
export function mcpConfigSources(input: {
  cwd: string
  root: string
  home: string
  env: Record<string, string | undefined>
  userRoots: ReadonlySet<UserRoot>
}): McpConfigSource[] {
  const out: McpConfigSource[] = []
  for (const dir of input.root === input.cwd ? [input.cwd] : [input.cwd, input.root]) {
    out.push({ abs: join(dir, ".promptline", "mcp.json"), format: "promptline", scope: "project" })
    out.push({ abs: join(dir, ".mcp.json"), format: "claude", scope: "project" })
    out.push({ abs: join(dir, ".cursor", "mcp.json"), format: "cursor", scope: "project" })
  }
  const on = (root: UserRoot) => input.userRoots.has(root)
  const h = input.home
  if (on("promptline")) {
    out.push({ abs: join(promptlineUserDir(h, input.env), "mcp.json"), format: "promptline", scope: "user" })
  }
  if (on("cursor")) out.push({ abs: join(h, ".cursor", "mcp.json"), format: "cursor", scope: "user" })
  if (on("cline")) {
    const own = input.env.CLINE_MCP_SETTINGS_PATH
    const settings = join("globalStorage", "saoudrizwan.claude-dev", "settings", "cline_mcp_settings.json")
    const files = [
      ...(own && isAbsolute(own) ? [own] : []),
      join(h, ".cline", "data", "settings", "cline_mcp_settings.json"),
      join(h, ".config", "Code", "User", settings),
      join(h, "Library", "Application Support", "Code", "User", settings),
    ]
    for (const abs of files) out.push({ abs, format: "cline", scope: "user" })
  }
  return out
}

function lineOf(raw: string, offset: number): number {
  return raw.slice(0, offset).split("\n").length
}

/**
 * Parses one config file's text into server configs; each bad server or field is a diagnostic. `timeouts`: the
 * `timeout`-only entries of promptline's own file (milliseconds by server name), for servers declared elsewhere.
 */
export function parseMcpConfig(
  raw: string,
  source: McpConfigSource & { path: string },
  vars: ExpandVars,
): { servers: McpServerConfig[]; diagnostics: Diagnostic[]; timeouts?: Map<string, number> } {
  const diagnostics: Diagnostic[] = []
  const at = (offset: number) => ({ path: source.path, line: lineOf(raw, offset) })
  const errors: ParseError[] = []
  const tree = jsonc().parseTree(raw, errors, { allowTrailingComma: true, disallowComments: false })
  const first = errors[0]
  if (first || !tree) {
    const problem = first ? describeSyntaxError(raw, first) : undefined
    const why = problem ? `${problem.message}, column ${problem.column}` : "the file is empty"
    diagnostics.push(
      diagnostic("error", "mcp-config-invalid", `not valid JSON (${why}); no servers read`, at(first?.offset ?? 0)),
    )
    return { servers: [], diagnostics }
  }
  const map = jsonc().findNodeAtLocation(tree, ["mcpServers"])
  if (!map) return { servers: [], diagnostics }
  if (map.type !== "object") {
    diagnostics.push(diagnostic("error", "mcp-config-invalid", "`mcpServers` must be an object", at(map.offset)))
    return { servers: [], diagnostics }
  }
  const servers: McpServerConfig[] = []
  const timeouts = new Map<string, number>()
  for (const property of map.children ?? []) {
    const [key, valueNode] = property.children ?? []
    if (!key || !valueNode) continue
    const name = String(key.value)
    const parsed = serverSchema().safeParse(jsonc().getNodeValue(valueNode))
    const bad = (message: string) =>
      diagnostics.push(
        diagnostic("error", "mcp-config-invalid", `server \`${name}\`: ${message}; skipped`, at(key.offset)),
      )
    if (!parsed.success) {
      bad(issuesLine(fieldIssues(parsed.error), "(server)"))
      continue
    }
    const s = parsed.data
    // In promptline's own file an entry with only `timeout` sets the time of a server declared in another file.
    if (source.format === "promptline" && s.timeout !== undefined && Object.keys(s).length === 1) {
      timeouts.set(name, s.timeout * 1000)
      continue
    }
    const declared = s.type ?? s.transportType
    let transport: McpServerConfig["transport"] | undefined = declared ? TRANSPORTS[declared] : undefined
    if (declared && !transport) {
      bad(`unknown transport type \`${declared}\``)
      continue
    }
    transport ??= s.command ? "stdio" : s.url ? "url" : undefined
    if (!transport) {
      bad("needs a `command` (stdio) or a `url` (HTTP)")
      continue
    }
    if (transport === "stdio" ? !s.command : !s.url) {
      bad(transport === "stdio" ? "a stdio server needs a `command`" : "an HTTP server needs a `url`")
      continue
    }
    const missing = new Set<string>()
    const x = (v: string) => {
      const r = expandVars(v, vars)
      for (const m of r.missing) missing.add(m)
      return r.value
    }
    const record = (r: Record<string, string> | undefined) =>
      Object.fromEntries(Object.entries(r ?? {}).map(([k, v]) => [k, x(v)]))
    const config: McpServerConfig = {
      name,
      source: source.path,
      format: source.format,
      scope: source.scope,
      transport,
      args: (s.args ?? []).map(x),
      env: record(s.env),
      headers: record(s.headers),
      disabled: s.disabled === true,
    }
    if (s.command) config.command = x(s.command)
    if (s.url) config.url = x(s.url)
    if (s.cwd) config.cwd = resolve(vars.workspace, x(s.cwd))
    if (s.timeout !== undefined && source.format === "promptline") {
      config.timeoutMs = s.timeout * 1000
      config.timeoutSource = source.path
    }
    for (const m of [...missing].sort()) {
      const message = `server \`${name}\`: environment variable ${m} is not set; it expands to ""`
      diagnostics.push(diagnostic("warning", "mcp-env-missing", message, at(key.offset)))
    }
    servers.push(config)
  }
  return { servers, diagnostics, ...(timeouts.size > 0 ? { timeouts } : {}) }
}

/**
 * Reads one config file; a missing file gives nothing, a broken one a diagnostic. A file whose symbolic links
 * lead out of its place (see LinkGuard) is refused with a warning; without `links`, the workspace is
 * `vars.workspace` and the user's folders follow from `vars.home`.
 */
export async function readMcpConfig(
  source: McpConfigSource & { path: string },
  vars: ExpandVars,
  links: LinkGuard = new LinkGuard(vars.workspace, vars.home, vars.env),
): Promise<{ servers: McpServerConfig[]; diagnostics: Diagnostic[]; timeouts?: Map<string, number>; found: boolean }> {
  const link = await links.check(source.abs, source.scope)
  if (!link.ok) return { servers: [], diagnostics: [linkDiagnostic(link, source.path)], found: true }
  if (link.missing) return { servers: [], diagnostics: [], found: false }
  const read = await readTextFile(link.real)
  if (!read.ok) {
    if (read.failure === "vanished") return { servers: [], diagnostics: [], found: false }
    const d = diagnostic("error", "mcp-config-unreadable", `cannot read the MCP config: ${read.message}`, {
      path: source.path,
    })
    return { servers: [], diagnostics: [d], found: true }
  }
  return { ...parseMcpConfig(read.text, source, vars), found: true }
}
