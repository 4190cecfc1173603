import { type Diagnostic, diagnostic } from "../diagnostics.js"
import type { GatherReport } from "./report.js"

/**
 * What an untrusted gather left out, said once: the project files it did not read and the project MCP servers
 * it did not start, each with how to enable them. The library and the CLI share the default (project files are
 * read; a project's MCP servers, commands it chose, start only when trusted) and these diagnostics; only the
 * words for enabling differ (`trust: true` in code, `--trust` on the command line).
 */

/** Why a project file was not read (instructions, skills), as the report says it. */
export const UNTRUSTED_FILES = "the workspace is not trusted, so project files are not read"
/** Why a project MCP server was not started, as the report says it. */
export const UNTRUSTED_SERVERS = "the workspace is not trusted, so its MCP servers are not started"

/** How to turn each part on, in the caller's words. */
export interface TrustHints {
  /** How to read project files, e.g. "leave `trust` out or pass `trust: true`". */
  files: string
  /** How to start project MCP servers, e.g. "pass `trust: true` (or `trustMcp: true`)". */
  servers: string
}

/** The hints in the library's own words (gather's options). */
export const LIBRARY_HINTS: TrustHints = {
  files: "leave `trust` out (the default reads them) or pass `trust: true` to gather()",
  servers: "pass `trust: true` (or `trustMcp: true`) to gather() to start them",
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

/** Up to four names, then how many more. */
function names(list: readonly string[]): string {
  const shown = list.slice(0, 4).join(", ")
  return list.length > 4 ? `${shown} and ${list.length - 4} more` : shown
}

/**
 * `project-untrusted` (info: the caller chose it) for project files not read, and `mcp-untrusted` (warning) for
 * project MCP servers not started; nothing when nothing was left out for want of trust.
 */
export function untrustedDiagnostics(
  report: GatherReport,
  hints: TrustHints,
  options: { servers: boolean } = { servers: true },
): Diagnostic[] {
  const out: Diagnostic[] = []
  const files = [...report.instructions, ...report.skills].filter(
    (e) => e.scope === "project" && e.status === "skipped" && e.reason === UNTRUSTED_FILES,
  )
  if (files.length > 0) {
    const what = plural(files.length, "project file")
    const message = `${what} not read (${names(files.map((e) => e.path))}): the workspace is not trusted; ${hints.files}`
    out.push(diagnostic("info", "project-untrusted", message))
  }
  const servers = report.mcpServers.filter(
    (e) => e.scope === "project" && e.status === "skipped" && e.reason === UNTRUSTED_SERVERS,
  )
  if (servers.length > 0 && options.servers) {
    const what = plural(servers.length, "project MCP server")
    const message = `${what} (${names(servers.map((e) => e.path))}) not started: a project's MCP servers are commands it chose, started only in a trusted workspace; ${hints.servers}`
    out.push(diagnostic("warning", "mcp-untrusted", message))
  }
  return out
}
