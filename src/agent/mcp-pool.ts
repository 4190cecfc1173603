import { McpConnection } from "../context/mcp/client.js"
import type { McpServerConfig } from "../context/mcp/config.js"
import { PromptlineError } from "../errors.js"
import type { McpCaller, McpContent, McpResourceContents } from "./executors/index.js"

/** How long a server gets to connect when a call first needs it. */
const CONNECT_TIMEOUT_MS = 10_000

/**
 * Live connections to the MCP servers a session uses, opened on the first call to each server and
 * kept for the session. `close()` ends them all (and stops stdio servers' processes).
 */
export class McpPool implements McpCaller {
  readonly #configs: Map<string, McpServerConfig>
  readonly #open = new Map<string, Promise<McpConnection>>()

  constructor(
    configs: readonly McpServerConfig[],
    private readonly cwd: string,
  ) {
    this.#configs = new Map(configs.map((c) => [c.name, c]))
  }

  #connection(server: string, signal: AbortSignal): Promise<McpConnection> {
    let pending = this.#open.get(server)
    if (!pending) {
      const config = this.#configs.get(server)
      if (!config) throw new PromptlineError("mcp-unknown-server", `no connected MCP server named "${server}"`)
      pending = McpConnection.open(config, { cwd: this.cwd, signal, timeout: CONNECT_TIMEOUT_MS })
      // A failed connection is forgotten, so the next call tries again.
      pending.catch(() => this.#open.delete(server))
      this.#open.set(server, pending)
    }
    return pending
  }

  async callTool(server: string, tool: string, args: Record<string, unknown>, options: { signal: AbortSignal }) {
    const connection = await this.#connection(server, options.signal)
    const result = await connection.callTool(tool, args, { signal: options.signal })
    return result as { content: McpContent[]; isError?: boolean; structuredContent?: unknown }
  }

  async readResource(server: string, uri: string, options: { signal: AbortSignal }) {
    const connection = await this.#connection(server, options.signal)
    return (await connection.readResource(uri, { signal: options.signal })) as { contents: McpResourceContents[] }
  }

  /** Closes every connection. */
  async close(): Promise<void> {
    const all = [...this.#open.values()]
    this.#open.clear()
    await Promise.all(all.map((p) => p.then((c) => c.close()).catch(() => undefined)))
  }
}
