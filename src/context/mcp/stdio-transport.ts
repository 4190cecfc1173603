import { type ChildProcess, spawn } from "node:child_process"
import { PassThrough } from "node:stream"
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import {
  killTree,
  markEnv,
  newProcessMark,
  type ProcessTree,
  signalTree,
  treeAlive,
  waitTreeGone,
} from "../../process-tree.js"

/** What a stdio MCP server is started with; `env` is its whole environment. */
export interface StdioServerParams {
  command: string
  args: readonly string[]
  env: Record<string, string>
  cwd?: string
  /** How long the server gets to exit after its stdin closes, and again after SIGTERM: default 2 s. */
  graceMs?: number
}

/** How long output a server wrote before it exited is still read once it has exited. */
const DRAIN_MS = 200

/**
 * The MCP stdio transport for POSIX: the server runs as the leader of its own process group, marked
 * as a process tree (src/process-tree.ts), so closing stops the server and everything it started
 * (a wrapper script's children, a backgrounded or setsid grandchild). Once the server is given up on,
 * its pipes are destroyed rather than waited on: a grandchild that holds them cannot keep us alive.
 * The server process exiting by itself also ends the connection and stops what it left running.
 */
export class ProcessTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void
  /** Everything the server writes to stderr. */
  readonly stderr = new PassThrough()
  readonly #params: StdioServerParams
  readonly #buffer = new ReadBuffer()
  #child: ChildProcess | undefined
  #tree: ProcessTree | undefined
  #exited = false
  #ended = false
  readonly #exitWaiters: (() => void)[] = []

  constructor(params: StdioServerParams) {
    this.#params = params
  }

  /** The server's process id once started. */
  get pid(): number | undefined {
    return this.#child?.pid
  }

  /** Starts the server process; rejects when it cannot be started. */
  start(): Promise<void> {
    if (this.#child) throw new Error("the MCP server process was already started")
    const mark = newProcessMark()
    const child = spawn(this.#params.command, [...this.#params.args], {
      env: { ...this.#params.env, ...markEnv(mark) },
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
      shell: false,
      ...(this.#params.cwd ? { cwd: this.#params.cwd } : {}),
    })
    this.#child = child
    return new Promise((resolve, reject) => {
      child.once("spawn", () => {
        if (child.pid !== undefined) this.#tree = { pid: child.pid, mark }
        resolve()
      })
      child.on("error", (error) => {
        reject(error)
        this.onerror?.(error)
        this.#end()
      })
      child.once("exit", () => this.#onExit())
      child.stdin?.on("error", (error) => this.onerror?.(error))
      child.stdout?.on("error", (error) => this.onerror?.(error))
      child.stdout?.on("data", (chunk: Buffer) => this.#read(chunk))
      child.stderr?.on("data", (chunk: Buffer) => this.stderr.write(chunk))
      child.stderr?.on("error", () => undefined)
    })
  }

  #read(chunk: Buffer): void {
    try {
      this.#buffer.append(chunk)
    } catch (error) {
      this.onerror?.(error as Error)
      void this.terminate()
      return
    }
    for (;;) {
      let message: JSONRPCMessage | null
      try {
        message = this.#buffer.readMessage()
      } catch (error) {
        this.onerror?.(error as Error)
        continue
      }
      if (message === null) break
      this.onmessage?.(message)
    }
  }

  /** The server process ended: read what it wrote last, stop what it left running, end the connection. */
  #onExit(): void {
    this.#exited = true
    for (const wake of this.#exitWaiters.splice(0)) wake()
    const tree = this.#tree
    const child = this.#child
    const closed = new Promise<void>((done) => {
      if (!child || (child.stdout?.readableEnded ?? true)) return done()
      child.once("close", () => done())
    })
    const drained = new Promise<void>((done) => setTimeout(done, DRAIN_MS).unref())
    void Promise.race([closed, drained]).then(async () => {
      if (tree && treeAlive(tree)) await killTree(tree)
      this.#end()
    })
  }

  /** Destroys the pipes and reports the connection closed, once. */
  #end(): void {
    if (this.#ended) return
    this.#ended = true
    const child = this.#child
    child?.stdin?.destroy()
    child?.stdout?.destroy()
    child?.stderr?.destroy()
    this.stderr.end()
    this.#buffer.clear()
    this.onclose?.()
  }

  #waitExit(ms: number): Promise<void> {
    if (this.#exited) return Promise.resolve()
    return new Promise((done) => {
      const timer = setTimeout(done, ms)
      this.#exitWaiters.push(() => {
        clearTimeout(timer)
        done()
      })
    })
  }

  /** Sends one message; throws "Not connected" once the connection ended (nothing reached the server). */
  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin
    if (this.#ended || this.#exited || !stdin?.writable) return Promise.reject(new Error("Not connected"))
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve()
      else stdin.once("drain", resolve)
    })
  }

  /** Asks the server to exit by closing its stdin, then stops its whole process tree; never waits on its pipes. */
  async close(): Promise<void> {
    if (this.#ended || !this.#child) return this.#end()
    const grace = this.#params.graceMs ?? 2000
    this.#child.stdin?.end()
    await this.#waitExit(grace)
    await this.#stopTree(grace)
  }

  /** Stops the server's whole process tree at once (SIGTERM, then SIGKILL after the grace period). */
  async terminate(): Promise<void> {
    if (this.#ended || !this.#child) return this.#end()
    await this.#stopTree(this.#params.graceMs ?? 2000)
  }

  async #stopTree(grace: number): Promise<void> {
    const tree = this.#tree
    if (tree && treeAlive(tree)) {
      const signalled = signalTree(tree, "SIGTERM")
      if (!(await waitTreeGone(tree, grace))) await killTree(tree, signalled)
    }
    this.#end()
  }
}
