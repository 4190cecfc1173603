// The processes bench/gateway runs side by side: `promptline serve` and claude-code-router 2.0.0, each a child
// process on this machine with its own temp HOME, plus a small keep-alive HTTP client and the RSS of a process.

import { type ChildProcess, spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { Agent, request } from "node:http"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")

/** A proxy running as a child process. */
export interface ProxyProcess {
  name: string
  url: string
  pid: number
  /** The inspector's WebSocket URL, when the process was started with `--inspect`. */
  inspector?: string
  stop(): Promise<void>
}

const children = new Set<ChildProcess>()
// A bench that throws or is interrupted still ends its children.
process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL")
})

function track(child: ChildProcess, home: string): () => Promise<void> {
  children.add(child)
  // Output is drained (a full pipe would stall the child) and dropped.
  child.stdout?.resume()
  child.stderr?.resume()
  return async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((done) => child.once("exit", () => done()))
      child.kill("SIGTERM")
      const timer = setTimeout(() => child.kill("SIGKILL"), 3000)
      await exited
      clearTimeout(timer)
    }
    children.delete(child)
    rmSync(home, { recursive: true, force: true })
  }
}

/**
 * Starts `promptline serve --json` (built dist/) with `gateway` as its config section; resolves once it listens.
 * `nodeArgs` go to node before the script (`--cpu-prof` to profile it).
 */
export async function startPromptline(
  gateway: Record<string, unknown>,
  nodeArgs: string[] = [],
): Promise<ProxyProcess> {
  const home = mkdtempSync(join(tmpdir(), "pl-bench-gw-"))
  const config = join(home, "promptline.config.json")
  writeFileSync(config, JSON.stringify({ gateway: { port: 0, ...gateway } }))
  const child = spawn(
    process.execPath,
    [...nodeArgs, join(root, "bin/promptline.js"), "serve", "--json", "--config", config],
    {
      cwd: home,
      env: { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, ".config") },
      stdio: ["ignore", "pipe", "pipe"],
    },
  )
  let inspector: string | undefined
  const url = await new Promise<string>((done, fail) => {
    let text = ""
    let errors = ""
    const onData = (chunk: Buffer) => {
      text += chunk.toString("utf8")
      const line = text.split("\n").find((l) => l.includes('"listening"'))
      if (line) {
        child.stdout!.off("data", onData)
        done((JSON.parse(line) as { url: string }).url)
      }
    }
    child.stdout!.on("data", onData)
    child.stderr!.on("data", (c: Buffer) => {
      errors += c.toString("utf8")
      inspector ??= /Debugger listening on (ws:\/\/\S+)/.exec(errors)?.[1]
    })
    child.once("exit", (code) => fail(new Error(`promptline serve exited (${code}): ${errors || text}`)))
  })
  return { name: "promptline serve", url, pid: child.pid!, inspector, stop: track(child, home) }
}

/** The claude-code-router CLI of the pinned bench peer (bench/package.json). */
function ccrCli(): string {
  const pkg = createRequire(import.meta.url).resolve("@musistudio/claude-code-router/package.json")
  const version = (JSON.parse(readFileSync(pkg, "utf8")) as { version: string }).version
  if (version !== "2.0.0") throw new Error(`claude-code-router ${version} is installed; the bench compares 2.0.0`)
  return join(dirname(pkg), "dist/cli.js")
}

/** Starts claude-code-router 2.0.0 on `port`, routing every request to the OpenAI Chat endpoint `chatUrl`. */
export async function startCcr(port: number, chatUrl: string, model: string): Promise<ProxyProcess> {
  const home = mkdtempSync(join(tmpdir(), "pl-bench-ccr-"))
  const dir = join(home, ".claude-code-router")
  const config = {
    LOG: false,
    PORT: port,
    HOST: "127.0.0.1",
    Providers: [{ name: "local", api_base_url: chatUrl, api_key: "sk-fake", models: [model] }],
    Router: { default: `local,${model}` },
  }
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, "config.json"), JSON.stringify(config))
  const child = spawn(process.execPath, [ccrCli(), "start"], {
    cwd: home,
    env: { ...process.env, HOME: home },
    stdio: ["ignore", "pipe", "pipe"],
  })
  const stop = track(child, home)
  const url = `http://127.0.0.1:${port}`
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) break
    const up = await fetch(`${url}/`).then(
      () => true,
      () => false,
    )
    if (up) return { name: "claude-code-router 2.0.0", url, pid: child.pid!, stop }
    await new Promise((done) => setTimeout(done, 100))
  }
  await stop()
  throw new Error("claude-code-router did not start listening")
}

/** A minimal Node.js proxy: each request piped to the upstream and the answer piped back, nothing else. */
const PIPE_PROXY = `
const http = require("node:http")
const [upstream, port] = process.argv.slice(1)
const agent = new http.Agent({ keepAlive: true })
http.createServer((req, res) => {
  const out = http.request(upstream + req.url, { method: req.method, headers: req.headers, agent }, (answer) => {
    res.writeHead(answer.statusCode, answer.headers)
    answer.pipe(res)
  })
  out.on("error", () => res.destroy())
  req.pipe(out)
}).listen(Number(port), "127.0.0.1", () => process.stdout.write("listening\\n"))
`

/** Starts the minimal pipe proxy on `port` in front of `upstream`: the floor of one more Node.js HTTP hop. */
export async function startPipeProxy(port: number, upstream: string): Promise<ProxyProcess> {
  const home = mkdtempSync(join(tmpdir(), "pl-bench-pipe-"))
  const child = spawn(process.execPath, ["-e", PIPE_PROXY, upstream, String(port)], {
    cwd: home,
    stdio: ["ignore", "pipe", "pipe"],
  })
  await new Promise<void>((done, fail) => {
    child.stdout!.once("data", () => done())
    child.once("exit", (code) => fail(new Error(`the pipe proxy exited (${code})`)))
  })
  return {
    name: "a bare Node.js pipe proxy",
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    stop: track(child, home),
  }
}

/** Resident set size of a process, and its peak so far, in MB (Linux /proc). */
export function rssOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? Number.NaN)
  return { rss: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 }
}

/** The answer of one request: status, the whole body, and the time it took in ms. */
export interface Reply {
  status: number
  body: string
  ms: number
}

const agent = new Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY })

/** POSTs `payload` (JSON text) and reads the whole answer (a stream is read to its end). */
export function post(url: string, payload: string, headers: Record<string, string> = {}): Promise<Reply> {
  const t0 = process.hrtime.bigint()
  return new Promise((done, fail) => {
    const req = request(
      url,
      {
        method: "POST",
        agent,
        headers: {
          "content-type": "application/json",
          "content-length": String(Buffer.byteLength(payload)),
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on("data", (c: Buffer) => chunks.push(c))
        res.on("end", () =>
          done({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString("utf8"),
            ms: Number(process.hrtime.bigint() - t0) / 1e6,
          }),
        )
        res.on("error", fail)
      },
    )
    req.on("error", fail)
    req.end(payload)
  })
}

/**
 * The live JavaScript heap of a process started with `--inspect`, in MB, after a full garbage collection asked
 * through the inspector (what is still reachable: a leak shows here, a heap that grew and was not yet given back
 * to the system does not).
 */
export async function liveHeapOf(inspector: string): Promise<number> {
  const { WebSocket } = await import("ws")
  const socket = new WebSocket(inspector)
  await new Promise((done, fail) => {
    socket.once("open", done)
    socket.once("error", fail)
  })
  let id = 0
  const call = (method: string) =>
    new Promise<Record<string, number>>((done, fail) => {
      const mine = ++id
      const onMessage = (data: Buffer) => {
        const message = JSON.parse(data.toString("utf8")) as {
          id?: number
          result?: Record<string, number>
          error?: unknown
        }
        if (message.id !== mine) return
        socket.off("message", onMessage)
        if (message.error) fail(new Error(`${method}: ${JSON.stringify(message.error)}`))
        else done(message.result ?? {})
      }
      socket.on("message", onMessage)
      socket.send(JSON.stringify({ id: mine, method }))
    })
  try {
    await call("HeapProfiler.collectGarbage")
    const usage = await call("Runtime.getHeapUsage")
    return (usage.usedSize ?? Number.NaN) / 1048576
  } finally {
    socket.close()
  }
}
