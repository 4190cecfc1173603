import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import { PromptlineError } from "../../errors.js"
import { type SecretEnvPolicy, withoutSecrets } from "../../secret-env.js"
import { compareNames } from "../paths.js"
import type { McpServerInfo } from "../prompt-context.js"
import type { McpServerConfig } from "./config.js"
import type { ProcessTransport } from "./stdio-transport.js"

/** How promptline introduces itself to MCP servers. */
export const MCP_CLIENT_INFO = { name: "promptline", version: "0.1.0" }

/** The most pages read from one list request, so a server that never stops paging cannot hang a gather. */
const MAX_PAGES = 100
/** How much of a stdio server's stderr is kept for error messages. */
const STDERR_TAIL = 2000

/** The parts of the MCP SDK a client uses: loaded on the first connection, once (it takes ~200 ms). */
interface McpSdk {
  Client: typeof import("@modelcontextprotocol/sdk/client/index.js").Client
  SSEClientTransport: typeof import("@modelcontextprotocol/sdk/client/sse.js").SSEClientTransport
  StdioClientTransport: typeof import("@modelcontextprotocol/sdk/client/stdio.js").StdioClientTransport
  getDefaultEnvironment: typeof import("@modelcontextprotocol/sdk/client/stdio.js").getDefaultEnvironment
  StreamableHTTPClientTransport: typeof import("@modelcontextprotocol/sdk/client/streamableHttp.js").StreamableHTTPClientTransport
  ProcessTransport: typeof ProcessTransport
  types: typeof import("@modelcontextprotocol/sdk/types.js")
}

let sdk: Promise<McpSdk> | undefined
/** The SDK after the first connection began loading it; undefined before (so no error can be the SDK's yet). */
let loadedSdk: McpSdk | undefined

function mcpSdk(): Promise<McpSdk> {
  sdk ??= Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/sse.js"),
    import("@modelcontextprotocol/sdk/client/stdio.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
    import("@modelcontextprotocol/sdk/types.js"),
    import("./stdio-transport.js"),
  ]).then(([client, sse, stdio, http, types, process]) => {
    loadedSdk = {
      Client: client.Client,
      SSEClientTransport: sse.SSEClientTransport,
      StdioClientTransport: stdio.StdioClientTransport,
      getDefaultEnvironment: stdio.getDefaultEnvironment,
      StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
      ProcessTransport: process.ProcessTransport,
      types,
    }
    return loadedSdk
  })
  return sdk
}

/** Whether `error` is the SDK's MCP error (a JSON-RPC error from the server or the connection). */
export function isMcpError(error: unknown): error is Error & { code: number } {
  return loadedSdk !== undefined && error instanceof loadedSdk.types.McpError
}

/** Whether `error` says the connection closed while a request was out. */
export function isMcpConnectionClosed(error: unknown): boolean {
  return isMcpError(error) && error.code === loadedSdk?.types.ErrorCode.ConnectionClosed
}

/** Whether `error` (or the error a failed connection wraps) is the SDK's request timeout. */
export function isMcpTimeout(error: unknown): boolean {
  const inner = error instanceof McpConnectError ? error.cause : error
  return isMcpError(inner) && inner.code === loadedSdk?.types.ErrorCode.RequestTimeout
}

/** Whether a transport is our own stdio transport (which can stop the server's whole process tree). */
const isProcessTransport = (transport: Transport): transport is ProcessTransport =>
  loadedSdk !== undefined && transport instanceof loadedSdk.ProcessTransport

/** Options of McpConnection.open besides the SDK's request options. */
export interface McpOpenOptions extends RequestOptions {
  /** The folder a stdio server runs in when its config names none. */
  cwd?: string
  /** Which inherited variables a stdio server does not get (its config's own `env` always passes). */
  secretEnv?: SecretEnvPolicy
  /** How long a stdio server gets to exit after its stdin closes, and after SIGTERM (default 2 s). */
  graceMs?: number
}

/**
 * A stdio server's environment: the few variables the MCP SDK lets servers inherit (HOME, LOGNAME, PATH,
 * SHELL, TERM, USER; a Windows set there) minus secrets, then everything its config's `env` names.
 */
export async function stdioServerEnv(
  config: McpServerConfig,
  secretEnv?: SecretEnvPolicy,
): Promise<Record<string, string>> {
  const { getDefaultEnvironment } = await mcpSdk()
  return { ...withoutSecrets(getDefaultEnvironment(), secretEnv), ...config.env }
}

type Page<T> = { nextCursor?: string | undefined } & T

async function allPages<T>(
  fetch: (cursor: string | undefined) => Promise<Page<Record<string, unknown>>>,
  key: string,
): Promise<T[]> {
  const out: T[] = []
  let cursor: string | undefined
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await fetch(cursor)
    out.push(...((result[key] as T[] | undefined) ?? []))
    cursor = result.nextCursor
    if (!cursor) break
  }
  return out
}

function isMethodNotFound(error: unknown): boolean {
  return (error as { code?: unknown })?.code === -32601
}

function pick<T extends Record<string, unknown>>(value: T, keys: (keyof T)[]): Partial<T> {
  const out: Partial<T> = {}
  for (const k of keys) if (value[k] !== undefined && value[k] !== null) out[k] = value[k]
  return out
}

/** Connecting to an MCP server failed; `stderr` holds the last lines a stdio server wrote. */
export class McpConnectError extends PromptlineError {
  readonly server: string
  readonly stderr: string
  constructor(server: string, message: string, stderr: string, cause: unknown) {
    super("mcp-connect", message, { cause })
    this.server = server
    this.stderr = stderr
  }
}

/** A live connection to one MCP server (stdio or HTTP); close it when done. */
export class McpConnection {
  private closed = false

  private constructor(
    readonly config: McpServerConfig,
    private readonly client: Client,
    private readonly transport: Transport,
    private readonly stderr: { text: string },
  ) {}

  /** Connects to a server; `options.signal` or `options.timeout` abort the handshake. */
  static async open(config: McpServerConfig, options: McpOpenOptions = {}): Promise<McpConnection> {
    const stderr = { text: "" }
    const attempt = async (kind: "stdio" | "http" | "sse"): Promise<McpConnection> => {
      const { Client } = await mcpSdk()
      const client = new Client(MCP_CLIENT_INFO, { capabilities: {} })
      const transport = await McpConnection.transport(config, kind, options, stderr)
      try {
        await client.connect(transport, options)
      } catch (error) {
        // A server that did not answer is stopped at once, with everything it started.
        if (isProcessTransport(transport)) await transport.terminate()
        await client.close().catch(() => undefined)
        await transport.close().catch(() => undefined)
        const message = (error as Error)?.message ?? String(error)
        throw new McpConnectError(config.name, message, stderr.text.trim(), error)
      }
      return new McpConnection(config, client, transport, stderr)
    }
    if (config.transport !== "url") return attempt(config.transport)
    try {
      return await attempt("http")
    } catch (error) {
      if (options.signal?.aborted) throw error
      // Servers from before streamable HTTP speak only the SSE transport.
      return attempt("sse")
    }
  }

  private static async transport(
    config: McpServerConfig,
    kind: "stdio" | "http" | "sse",
    options: McpOpenOptions,
    stderr: { text: string },
  ): Promise<Transport> {
    const { StdioClientTransport, SSEClientTransport, StreamableHTTPClientTransport, ProcessTransport } = await mcpSdk()
    if (kind === "stdio") {
      const env = await stdioServerEnv(config, options.secretEnv)
      const dir = config.cwd ?? options.cwd
      // On POSIX our own transport, which stops the server's whole process tree; Windows keeps the
      // SDK's, which resolves `npx`-style commands there (taskkill-based tree stops are not wired to it).
      const transport =
        process.platform === "win32"
          ? new StdioClientTransport({
              command: config.command!,
              args: config.args,
              env,
              stderr: "pipe",
              ...(dir ? { cwd: dir } : {}),
            })
          : new ProcessTransport({
              command: config.command!,
              args: config.args,
              env,
              ...(dir ? { cwd: dir } : {}),
              ...(options.graceMs !== undefined ? { graceMs: options.graceMs } : {}),
            })
      transport.stderr?.on("data", (chunk: Buffer | string) => {
        stderr.text = (stderr.text + chunk.toString()).slice(-STDERR_TAIL)
      })
      return transport
    }
    const url = new URL(config.url!)
    const requestInit = { headers: config.headers }
    return kind === "http"
      ? new StreamableHTTPClientTransport(url, { requestInit })
      : new SSEClientTransport(url, { requestInit })
  }

  /** The last lines a stdio server wrote to stderr (for error messages). */
  get stderrTail(): string {
    return this.stderr.text.trim()
  }

  /** Lists tools, resources, resource templates and instructions, each sorted, as a context snapshot. */
  async snapshot(options: RequestOptions = {}): Promise<McpServerInfo> {
    const caps = this.client.getServerCapabilities() ?? {}
    const info: McpServerInfo = { name: this.config.name, tools: [], resources: [], resourceTemplates: [] }
    const instructions = this.client.getInstructions()
    if (instructions?.trim()) info.instructions = instructions.trim()
    if (caps.tools) {
      const tools = await allPages<{ name: string; description?: string; inputSchema: Record<string, unknown> }>(
        (cursor) => this.client.listTools(cursor ? { cursor } : {}, options),
        "tools",
      )
      info.tools = tools
        .map((t) => ({ ...pick(t, ["name", "description"]), inputSchema: t.inputSchema }) as McpServerInfo["tools"][0])
        .sort((a, b) => compareNames(a.name, b.name))
    }
    if (caps.resources) {
      const list = async <T>(fn: () => Promise<T[]>): Promise<T[]> => {
        try {
          return await fn()
        } catch (error) {
          if (isMethodNotFound(error)) return []
          throw error
        }
      }
      type R = McpServerInfo["resources"][0]
      type RT = McpServerInfo["resourceTemplates"][0]
      const resources = await list(() =>
        allPages<R>((cursor) => this.client.listResources(cursor ? { cursor } : {}, options), "resources"),
      )
      const templates = await list(() =>
        allPages<RT>(
          (cursor) => this.client.listResourceTemplates(cursor ? { cursor } : {}, options),
          "resourceTemplates",
        ),
      )
      info.resources = resources
        .map((r) => pick(r, ["uri", "name", "description", "mimeType"]) as R)
        .sort((a, b) => compareNames(a.uri, b.uri) || compareNames(a.name, b.name))
      info.resourceTemplates = templates
        .map((r) => pick(r, ["uriTemplate", "name", "description", "mimeType"]) as RT)
        .sort((a, b) => compareNames(a.uriTemplate, b.uriTemplate) || compareNames(a.name, b.name))
    }
    return info
  }

  /** Calls a tool on the server and returns its raw result. */
  callTool(name: string, args: Record<string, unknown>, options: RequestOptions = {}) {
    return this.client.callTool({ name, arguments: args }, undefined, options)
  }

  /** Reads a resource from the server. */
  readResource(uri: string, options: RequestOptions = {}) {
    return this.client.readResource({ uri }, options)
  }

  /**
   * Closes the connection and stops a stdio server's processes, all of them; safe to call twice.
   * `now`: do not give the server time to exit by itself (it stopped answering).
   */
  async close(options: { now?: boolean } = {}): Promise<void> {
    if (this.closed) return
    this.closed = true
    if (options.now && isProcessTransport(this.transport)) await this.transport.terminate()
    if (loadedSdk && this.transport instanceof loadedSdk.StreamableHTTPClientTransport) {
      // Ends the session on the server too; a server that does not answer within a second is left to expire it.
      const ending = this.transport.terminateSession().catch(() => undefined)
      let timer: NodeJS.Timeout | undefined
      const limit = new Promise<void>((done) => {
        timer = setTimeout(done, 1000)
      })
      await Promise.race([ending, limit])
      clearTimeout(timer)
    }
    await this.client.close().catch(() => undefined)
  }
}
