/**
 * A real `redis-server` (Debian's package `redis-server`; .ci/run installs it) on a free loopback port, with no
 * persistence, for the shared-state tests and bench/fleet. Without the binary those tests skip, named in the run;
 * with PROMPTLINE_TEST_PEERS=required (CI) a missing binary fails them instead.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { accessSync, constants } from "node:fs"
import { createServer } from "node:net"
import { delimiter, join } from "node:path"

/** The `redis-server` on the PATH, or undefined. */
export function findRedisServer(): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir === "") continue
    const file = join(dir, "redis-server")
    try {
      accessSync(file, constants.X_OK)
      return file
    } catch {
      // not in this folder
    }
  }
  return undefined
}

/** What to run to install it. */
export const REDIS_INSTALL = "apt-get install -y redis-server"

/** The binary, checked once per test file: undefined locally without it (tests skip), an error in CI. */
export function redisServerOrSkip(): string | undefined {
  const found = findRedisServer()
  if (!found && process.env.PROMPTLINE_TEST_PEERS === "required")
    throw new Error(`redis-server is not installed (${REDIS_INSTALL}); CI runs the shared-state tests`)
  return found
}

/** A running redis-server. */
export interface RedisServer {
  port: number
  /** `redis://127.0.0.1:port` (with `user:password@` when started with a password). */
  url: string
  /** Stops it (SIGTERM) and waits for its exit. */
  stop(): Promise<void>
  /** Stops answering (SIGSTOP) without closing connections, as a hung server does; `resume` undoes it. */
  pause(): void
  resume(): void
  /** Starts it again on the same port (after `stop`). */
  restart(): Promise<void>
}

/** Every redis-server started here and not yet stopped: a test that fails or a worker that ends still ends them. */
const running = new Set<ChildProcess>()
process.on("exit", () => {
  for (const child of running) child.kill("SIGKILL")
})

/** A free loopback port (the kernel's pick, released for the server to take). */
async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()))
  const { port } = server.address() as { port: number }
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

/** Spawns redis-server on `port`; resolves once it accepts connections, rejects when it exits first. */
function spawnRedis(binary: string, port: number, password: string | undefined): Promise<ChildProcess> {
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
  if (password) args.push("--requirepass", password)
  const child = spawn(binary, args, { stdio: ["ignore", "pipe", "pipe"] })
  running.add(child)
  child.once("exit", () => running.delete(child))
  return new Promise((resolve, reject) => {
    let out = ""
    const onData = (chunk: Buffer) => {
      out += chunk.toString("utf8")
      if (out.includes("Ready to accept connections")) {
        child.stdout!.off("data", onData)
        child.stdout!.resume()
        child.off("exit", onExit)
        resolve(child)
      }
    }
    const onExit = (code: number | null) => reject(new Error(`redis-server exited (${code}): ${out.slice(-500)}`))
    child.stdout!.on("data", onData)
    child.stderr!.resume()
    child.once("exit", onExit)
  })
}

/** Starts a redis-server on a free port (another is tried when the port was taken meanwhile). */
export async function startRedis(binary: string, options: { password?: string } = {}): Promise<RedisServer> {
  let child: ChildProcess | undefined
  let port = 0
  for (let attempt = 0; !child; attempt++) {
    port = await freePort()
    try {
      child = await spawnRedis(binary, port, options.password)
    } catch (error) {
      if (attempt >= 4) throw error
    }
  }
  const stopChild = async () => {
    const running = child
    if (!running || running.exitCode !== null || running.signalCode !== null) return
    const exited = new Promise<void>((resolve) => running.once("exit", () => resolve()))
    running.kill("SIGCONT")
    running.kill("SIGTERM")
    await exited
  }
  const auth = options.password ? `:${encodeURIComponent(options.password)}@` : ""
  return {
    port,
    url: `redis://${auth}127.0.0.1:${port}`,
    stop: stopChild,
    pause: () => child?.kill("SIGSTOP"),
    resume: () => child?.kill("SIGCONT"),
    restart: async () => {
      await stopChild()
      child = await spawnRedis(binary, port, options.password)
    },
  }
}
