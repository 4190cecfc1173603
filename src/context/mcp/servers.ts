import { type Diagnostic, diagnostic } from "../../diagnostics.js"
import type { GatherEntry } from "../report.js"
import type { UserRoot } from "../user-roots.js"
import { type McpConfigSource, type McpServerConfig, mcpConfigSources, readMcpConfig } from "./config.js"
import type { ExpandVars } from "./expand.js"
import { type McpSnapshot, snapshotServers } from "./snapshot.js"

/** What gathering MCP servers needs. */
export interface McpInput {
  cwd: string
  root: string
  home: string
  env: Record<string, string | undefined>
  trust: boolean
  userRoots: ReadonlySet<UserRoot>
  /** False: read the configs and list the servers, but connect to none. */
  connect: boolean
  timeoutMs?: number
  display: (abs: string, scope: "user" | "project") => string
}

/** The servers to connect to (first of a name wins), entries for those left out, and diagnostics. */
export async function readMcpServers(
  input: McpInput,
): Promise<{ configs: McpServerConfig[]; entries: GatherEntry[]; diagnostics: Diagnostic[] }> {
  const sources: (McpConfigSource & { path: string })[] = mcpConfigSources(input).map((s) => ({
    ...s,
    path: input.display(s.abs, s.scope),
  }))
  const vars: ExpandVars = { env: input.env, home: input.home, workspace: input.root }
  const read = await Promise.all(sources.map((s) => readMcpConfig(s, vars)))
  const configs: McpServerConfig[] = []
  const entries: GatherEntry[] = []
  const diagnostics: Diagnostic[] = []
  const taken = new Map<string, string>()
  read.forEach((r, i) => {
    const source = sources[i]!
    diagnostics.push(...r.diagnostics)
    for (const config of r.servers) {
      const entry: GatherEntry = {
        kind: "mcp-server",
        path: config.name,
        scope: config.scope,
        status: "skipped",
        convention: config.format,
        detail: `from ${config.source}`,
      }
      if (source.scope === "project" && !input.trust) {
        entry.reason = "the workspace is not trusted, so its MCP servers are not started"
        entries.push(entry)
        continue
      }
      const first = taken.get(config.name)
      if (first !== undefined) {
        entry.status = "shadowed"
        entry.reason = `a server named \`${config.name}\` is already defined in ${first}`
        diagnostics.push(
          diagnostic("warning", "mcp-server-shadowed", `${entry.reason}; this one is ignored`, {
            path: config.source,
          }),
        )
        entries.push(entry)
        continue
      }
      taken.set(config.name, config.source)
      configs.push(config)
    }
  })
  return { configs, entries, diagnostics }
}

/** Reads every MCP config, connects to the servers (unless `connect` is false) and snapshots them. */
export async function gatherMcp(input: McpInput): Promise<McpSnapshot> {
  const { configs, entries, diagnostics } = await readMcpServers(input)
  if (!input.connect) {
    const off = configs.map(
      (c): GatherEntry => ({
        kind: "mcp-server",
        path: c.name,
        scope: c.scope,
        status: "skipped",
        convention: c.format,
        reason: "MCP connections are switched off",
        detail: `from ${c.source}`,
      }),
    )
    return { servers: [], entries: [...off, ...entries], diagnostics }
  }
  const options: { timeoutMs?: number; cwd: string } = { cwd: input.cwd }
  if (input.timeoutMs !== undefined) options.timeoutMs = input.timeoutMs
  const live = await snapshotServers(configs, options)
  return {
    servers: live.servers,
    entries: [...live.entries, ...entries],
    diagnostics: [...diagnostics, ...live.diagnostics],
  }
}
