import { isMcpConnectionClosed, isMcpError, isMcpTimeout, McpConnection } from "../context/mcp/client.js"
import type { McpServerConfig } from "../context/mcp/config.js"
import { timeoutAdvice } from "../context/mcp/timeout-advice.js"
import { PromptlineError } from "../errors.js"
import { agentSecretPolicy, type SecretEnvOptions } from "./child-env.js"
import type { McpCaller, McpContent, McpResourceContents } from "./executors/index.js"

/** How long a server gets to connect when a call first needs it, unless its config sets `timeout`. */
const CONNECT_TIMEOUT_MS = 10_000

/** The SDK refused to send because the transport had already closed: nothing reached the server. */
function isNotConnected(error: unknown): boolean {
  return error instanceof Error && !isMcpError(error) && error.message === "Not connected"
}

/** The connection closed while the request was out (the server may have acted on it). */
function isConnectionClosed(error: unknown): boolean {
  return isMcpConnectionClosed(error)
}

/**
 * Live connections to the MCP servers a session uses, opened on the first call to each server and
 * kept for the session. A connection found closed (a stdio server that crashed, say) is dropped and
 * the next call opens a new one; a call that never left because of it is sent once more on the new
 * one. `close()` ends them all, and stops every process a stdio server started. A stdio server inherits
 * no secret: provider keys, `options.secretEnv` and secret-looking names are removed from what it inherits
 * (only what its config's `env` names passes).
 */
export class McpPool implements McpCaller {
  readonly #configs: Map<string, McpServerConfig>
  readonly #open = new Map<string, Promise<McpConnection>>()
  readonly #options: SecretEnvOptions

  constructor(
    configs: readonly McpServerConfig[],
    private readonly cwd: string,
    options: SecretEnvOptions = {},
  ) {
    this.#configs = new Map(configs.map((c) => [c.name, c]))
    this.#options = options
  }

  #connection(server: string, signal: AbortSignal): Promise<McpConnection> {
    let pending = this.#open.get(server)
    if (!pending) {
      const config = this.#configs.get(server)
      if (!config) throw new PromptlineError("mcp-unknown-server", `no connected MCP server named "${server}"`)
      const secretEnv = agentSecretPolicy(this.#options)
      const limit = config.timeoutMs ?? CONNECT_TIMEOUT_MS
      pending = McpConnection.open(config, { cwd: this.cwd, signal, timeout: limit, secretEnv }).catch((error) => {
        if (!isMcpTimeout(error)) throw error
        const { said, advice } = timeoutAdvice(config, limit)
        throw new PromptlineError("mcp-server-timeout", `MCP server \`${config.name}\`: ${said}. ${advice}`, {
          cause: error,
        })
      })
      // A failed connection is forgotten, so the next call tries again.
      pending.catch(() => this.#open.delete(server))
      this.#open.set(server, pending)
    }
    return pending
  }

  /** Runs one request on the server's connection, dropping the connection when it turns out closed. */
  async #request<T>(server: string, signal: AbortSignal, request: (connection: McpConnection) => Promise<T>) {
    for (let attempt = 0; ; attempt++) {
      const pending = this.#connection(server, signal)
      const connection = await pending
      try {
        return await request(connection)
      } catch (error) {
        const unsent = isNotConnected(error)
        // A cancelled request also ends in ConnectionClosed; the connection itself is fine then.
        if (signal.aborted || !(unsent || isConnectionClosed(error))) throw error
        if (this.#open.get(server) === pending) this.#open.delete(server)
        await connection.close().catch(() => undefined)
        if (!unsent || attempt > 0) throw error
      }
    }
  }

  async callTool(server: string, tool: string, args: Record<string, unknown>, options: { signal: AbortSignal }) {
    const result = await this.#request(server, options.signal, (c) =>
      c.callTool(tool, args, { signal: options.signal }),
    )
    return result as { content: McpContent[]; isError?: boolean; structuredContent?: unknown }
  }

  async readResource(server: string, uri: string, options: { signal: AbortSignal }) {
    const result = await this.#request(server, options.signal, (c) => c.readResource(uri, { signal: options.signal }))
    return result as { contents: McpResourceContents[] }
  }

  /** Closes every connection. */
  async close(): Promise<void> {
    const all = [...this.#open.values()]
    this.#open.clear()
    await Promise.all(all.map((p) => p.then((c) => c.close()).catch(() => undefined)))
  }
}
