import { type Diagnostic, diagnostic } from "../../diagnostics.js"
import { LinkGuard } from "../link-guard.js"
import type { GatherEntry } from "../report.js"
import { UNTRUSTED_SERVERS } from "../untrusted.js"
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
  /** Refuses config files linked out of their place; default: a guard for `root`, `home` and `env`. */
  links?: LinkGuard
  display: (abs: string, scope: "user" | "project") => string
}

/** Every server found, in config order: a config to connect to, or an entry saying why it is left out. */
export type McpItem = { config: McpServerConfig } | { entry: GatherEntry }

/** Reads every MCP config: the servers to connect to (first of a name wins) and those left out, in order. */
export async function readMcpServers(input: McpInput): Promise<{ items: McpItem[]; diagnostics: Diagnostic[] }> {
  const sources: (McpConfigSource & { path: string })[] = mcpConfigSources(input).map((s) => ({
    ...s,
    path: input.display(s.abs, s.scope),
  }))
  const vars: ExpandVars = { env: input.env, home: input.home, workspace: input.root }
  const links = input.links ?? new LinkGuard(input.root, input.home, input.env)
  const read = await Promise.all(sources.map((s) => readMcpConfig(s, vars, links)))
  const items: McpItem[] = []
  const diagnostics: Diagnostic[] = []
  const taken = new Map<string, string>()
  // `timeout`-only entries of promptline's own files, most specific first; an untrusted project's are not read.
  const timeouts = new Map<string, { ms: number; source: string }>()
  read.forEach((r, i) => {
    const source = sources[i]!
    if (source.scope === "project" && !input.trust) return
    for (const [name, ms] of r.timeouts ?? []) if (!timeouts.has(name)) timeouts.set(name, { ms, source: source.path })
  })
  for (const r of read) {
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
      if (config.scope === "project" && !input.trust) {
        entry.reason = UNTRUSTED_SERVERS
        items.push({ entry })
        continue
      }
      const first = taken.get(config.name)
      if (first !== undefined) {
        entry.status = "shadowed"
        entry.reason = `a server named \`${config.name}\` is already defined in ${first}`
        const message = `${entry.reason}; this one is ignored`
        diagnostics.push(diagnostic("warning", "mcp-server-shadowed", message, { path: config.source }))
        items.push({ entry })
        continue
      }
      taken.set(config.name, config.source)
      const timeout = config.timeoutMs === undefined ? timeouts.get(config.name) : undefined
      if (timeout) entry.detail = `${entry.detail}; timeout ${timeout.ms / 1000} s from ${timeout.source}`
      if (!input.connect) {
        items.push({ entry: { ...entry, reason: "MCP connections are switched off" } })
        continue
      }
      items.push({ config: timeout ? { ...config, timeoutMs: timeout.ms, timeoutSource: timeout.source } : config })
    }
  }
  return { items, diagnostics }
}

/** Reads every MCP config, connects to the servers (unless `connect` is false) and snapshots them. */
export async function gatherMcp(input: McpInput): Promise<McpSnapshot> {
  const { items, diagnostics } = await readMcpServers(input)
  const configs = items.flatMap((item) => ("config" in item ? [item.config] : []))
  const options: { timeoutMs?: number; cwd: string } = { cwd: input.cwd }
  if (input.timeoutMs !== undefined) options.timeoutMs = input.timeoutMs
  const live = await snapshotServers(configs, options)
  let next = 0
  const entries = items.map((item) => ("config" in item ? live.entries[next++]! : item.entry))
  return { ...live, entries, diagnostics: [...diagnostics, ...live.diagnostics] }
}
