import { type Diagnostic, diagnostic } from "../../diagnostics.js"
import { compareNames } from "../paths.js"
import type { McpServerInfo } from "../prompt-context.js"
import type { GatherEntry } from "../report.js"
import { McpConnectError, McpConnection } from "./client.js"
import type { McpServerConfig } from "./config.js"
import { timeoutAdvice } from "./timeout-advice.js"
import { checkSnapshot } from "./validate.js"

/** The default time each MCP server gets to connect and list everything: 10 s. */
export const DEFAULT_MCP_TIMEOUT_MS = 10_000

/** Snapshots of the servers that answered, a report entry per server, and diagnostics for the rest. */
export interface McpSnapshot {
  servers: McpServerInfo[]
  /** The configs of the servers that answered, in the order of `servers`: an agent reconnects with them. */
  configs: McpServerConfig[]
  entries: GatherEntry[]
  diagnostics: Diagnostic[]
}

function counted(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? "" : "s"}`
}

/** Connects to one server, lists everything, and closes; never throws. */
async function snapshotOne(
  config: McpServerConfig,
  timeoutMs: number,
  cwd: string,
): Promise<{ info?: McpServerInfo; error?: string; timedOut?: boolean }> {
  const limit = config.timeoutMs ?? timeoutMs
  const { said, advice } = timeoutAdvice(config, limit)
  const controller = new AbortController()
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    controller.abort(new Error(said))
  }, limit)
  let connection: McpConnection | undefined
  try {
    const options = { signal: controller.signal, timeout: limit, cwd }
    connection = await McpConnection.open(config, options)
    const info = await connection.snapshot({ signal: controller.signal, timeout: limit })
    return { info }
  } catch (error) {
    const message = timedOut ? said : ((error as Error)?.message ?? String(error))
    const tail = error instanceof McpConnectError ? error.stderr : connection?.stderrTail
    const told = tail ? `${message} (stderr: ${tail.split("\n").slice(-3).join(" | ")})` : message
    // A timeout says how to give the server more time, after what it wrote.
    return { error: timedOut ? `${told}.${advice ? ` ${advice}` : ""}` : told, timedOut }
  } finally {
    clearTimeout(timer)
    await connection?.close({ now: timedOut })
  }
}

/** Connects to every enabled server in parallel, each with its own timeout, and snapshots what they offer. */
export async function snapshotServers(
  configs: readonly McpServerConfig[],
  options: { timeoutMs?: number; cwd: string },
): Promise<McpSnapshot> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_MCP_TIMEOUT_MS
  const out: McpSnapshot = { servers: [], configs: [], entries: [], diagnostics: [] }
  const results = await Promise.all(
    configs.map((c) => (c.disabled ? Promise.resolve(undefined) : snapshotOne(c, timeoutMs, options.cwd))),
  )
  configs.forEach((config, i) => {
    const entry: GatherEntry = {
      kind: "mcp-server",
      path: config.name,
      scope: config.scope,
      status: "loaded",
      convention: config.format,
      detail: `from ${config.source}`,
    }
    const result = results[i]
    const checked = result?.info ? checkSnapshot(result.info) : undefined
    if (checked) {
      for (const tool of checked.droppedTools) {
        const name = tool.name === undefined ? "a tool without a name" : `tool ${JSON.stringify(tool.name)}`
        const message = `MCP server \`${config.name}\`: ${name} left out (${tool.problems})`
        out.diagnostics.push(diagnostic("warning", "mcp-tool-invalid", message, { path: config.source }))
      }
      if (checked.droppedTools.length > 0)
        entry.reason = `${counted(checked.droppedTools.length, "invalid tool")} left out`
    }
    if (!result) {
      entry.status = "skipped"
      entry.reason = "disabled in its config"
    } else if (checked?.info) {
      const s = checked.info
      const parts = [counted(s.tools.length, "tool"), counted(s.resources.length, "resource")]
      parts.push(counted(s.resourceTemplates.length, "resource template"))
      const timeout =
        config.timeoutSource && config.timeoutSource !== config.source
          ? `; timeout ${config.timeoutMs! / 1000} s from ${config.timeoutSource}`
          : ""
      entry.detail = `${parts.join(", ")}; from ${config.source}${timeout}`
      out.servers.push(s)
      out.configs.push(config)
    } else {
      entry.status = "failed"
      entry.reason = checked?.problem ?? result.error ?? "unknown error"
      const code = checked?.problem
        ? "mcp-server-invalid"
        : result.timedOut
          ? "mcp-server-timeout"
          : "mcp-server-failed"
      out.diagnostics.push(
        diagnostic("error", code, `MCP server \`${config.name}\`: ${entry.reason}`, { path: config.source }),
      )
    }
    out.entries.push(entry)
  })
  out.servers.sort((a, b) => compareNames(a.name, b.name))
  out.configs.sort((a, b) => compareNames(a.name, b.name))
  return out
}
