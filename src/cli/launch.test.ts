/**
 * `promptline launch` with a stand-in agent (test/clients/stand-in-agent.mjs, beside the SDK clients it imports) under each known agent's name and
 * as a plain SDK client: a real gateway, a real child process, the replay server as the upstream.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { connect } from "node:net"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { type ReplayServer, startReplayServer } from "../replay/server.js"
import { scriptOf } from "../replay/test-helpers/fixtures.js"
import { main } from "./main.js"

const root = join(dirname(fileURLToPath(import.meta.url)), "../..")
const STAND_IN = fileURLToPath(new URL("../../test/clients/stand-in-agent.mjs", import.meta.url))
/** The user's provider key: it must reach the gateway's upstream config, never the agent. */
const USER_KEY = "sk-user-own-key-0123456789"
const TOKEN = "launch-token-for-this-test"
const ANSWER = "hi from the replay"

let dir: string
let replay: ReplayServer | undefined
let thief: Server | undefined
/** A launch running as a process of its own, stopped after a test that left it running. */
let running: ChildProcess | undefined
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "pl-launch-"))
  for (const sub of ["home", "work", "bin"]) await mkdir(join(dir, sub))
})
afterEach(async () => {
  if (running && running.exitCode === null && running.signalCode === null) running.kill("SIGKILL")
  running = undefined
  await replay?.close()
  await new Promise<void>((resolve) => (thief ? thief.close(() => resolve()) : resolve()))
  replay = thief = undefined
  await rm(dir, { recursive: true, force: true })
})

/** A command on the test's PATH that runs the stand-in as `as`. */
async function standIn(command: string, as: string): Promise<void> {
  const file = join(dir, "bin", command)
  await writeFile(file, `#!/bin/sh\nexec "${process.execPath}" "${STAND_IN}" ${as} "$@"\n`)
  await chmod(file, 0o755)
}

/** The replay server answering `turns` requests, and the user's config routing every model to it. */
async function upstream(turns = 1): Promise<ReplayServer> {
  replay = await startReplayServer({
    script: scriptOf(...Array.from({ length: turns }, () => ({ text: ANSWER, usage: { input: 100, output: 5 } }))),
  })
  const url = replay.url
  await userConfig({
    gateway: {
      // No keyEnv: launch gives each its provider's own variable, which holds the user's key.
      upstreams: {
        a: { provider: "anthropic", baseUrl: url },
        chat: { provider: "openai", format: "openai-chat", baseUrl: `${url}/v1` },
        responses: { provider: "openai", format: "openai-responses", baseUrl: `${url}/v1` },
        g: { provider: "gemini", baseUrl: url },
      },
      routes: [
        { match: "claude-*", upstream: "a" },
        { match: "gpt-*", upstream: "responses" },
        { match: "gemini-*", upstream: "g" },
        { match: "*", upstream: "chat" },
      ],
    },
  })
  return replay
}

async function userConfig(content: unknown): Promise<void> {
  const folder = join(dir, "home", ".config", "promptline")
  await mkdir(folder, { recursive: true })
  await writeFile(join(folder, "promptline.config.json"), JSON.stringify(content))
}

/** The environment of `promptline launch`: a home of its own, the stand-ins first on the PATH, the user's keys. */
function launchEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    HOME: join(dir, "home"),
    PATH: `${join(dir, "bin")}:${process.env.PATH}`,
    ANTHROPIC_API_KEY: USER_KEY,
    OPENAI_API_KEY: USER_KEY,
    GEMINI_API_KEY: USER_KEY,
    STAND_IN_SECRET: USER_KEY,
    STAND_IN_REPORT: join(dir, "report.json"),
    ...extra,
  }
}

interface Report {
  as: string
  args: string[]
  baseURL: string
  sawUserKey: boolean
  withoutToken: number
  text: string
  ready?: boolean
  afterSignal?: string
}

async function report(): Promise<Report | undefined> {
  try {
    return JSON.parse(await readFile(join(dir, "report.json"), "utf8")) as Report
  } catch {
    return undefined
  }
}

/** Runs `promptline launch ARGV` in this process; its exit status, what it wrote, and the stand-in's report. */
async function launch(argv: string[], env = launchEnv()) {
  let stdout = ""
  let stderr = ""
  const io = {
    stdout: (t: string) => {
      stdout += t
    },
    stderr: (t: string) => {
      stderr += t
    },
    cwd: join(dir, "work"),
    env,
    today: () => "2026-12-04",
    secret: () => TOKEN,
  }
  const code = await main(["launch", ...argv], io)
  return { code, stdout, stderr, report: await report() }
}

/** Whether something listens at a URL's host and port. */
function listening(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname)
    socket.once("connect", () => {
      socket.destroy()
      resolve(true)
    })
    socket.once("error", () => resolve(false))
  })
}

const START_LINE =
  /^promptline launch: .+ through the gateway on http:\/\/127\.0\.0\.1:\d+ \([a-z-]+, token-guarded\); traces in .+, usage: promptline usage .+$/

describe("promptline launch", () => {
  it.each([
    ["claude", ["claude", "-p", "say hi"]],
    ["codex", ["codex", "exec", "say hi"]],
    ["gemini", ["gemini", "-p", "say hi"]],
    ["qwen", ["qwen", "-p", "say hi"]],
    ["opencode", ["opencode", "run", "say hi"]],
    ["anthropic", ["--format", "anthropic", "some-anthropic-cli"]],
    ["openai-chat", ["--format", "openai-chat", "some-chat-cli"]],
    ["openai-responses", ["--format", "openai-responses", "some-responses-cli"]],
    ["gemini-sdk", ["--format", "gemini", "some-gemini-cli"]],
  ])("points %s at a token-guarded gateway that answers from the user's upstream", async (as, argv) => {
    const server = await upstream()
    const command = argv[0] === "--format" ? argv[2]! : argv[0]!
    await standIn(command, as)
    const run = await launch(argv)
    expect(run.stderr).toBe(`${run.stderr.trimEnd()}\n`)
    const lines = run.stderr.trimEnd().split("\n")
    expect(lines[0]).toMatch(START_LINE)
    // The call the stand-in made without the token (refused, 401) is no model request: not counted.
    expect(lines.at(-1)).toMatch(
      new RegExp(
        `^promptline launch: ${command} exited with status 0; 1 request · in 100 tokens \\(0% cached\\) · out 5 · ` +
          `\\$\\? \\(no price for [a-z]+-stand-in\\)$`,
      ),
    )
    expect(run.code).toBe(0)
    expect(run.report).toMatchObject({ as, withoutToken: 401, text: ANSWER, sawUserKey: false })
    // The agent's own arguments come after the set-up's, as given.
    const own = argv.slice(argv.indexOf(command) + 1)
    expect(run.report!.args.slice(run.report!.args.length - own.length)).toEqual(own)
    expect(server.requests).toHaveLength(1)
  })

  it("gives Gemini CLI its auth type in system defaults of its own, unless the user's environment names theirs", async () => {
    await upstream(2)
    await standIn("gemini", "gemini")
    const ours = join(dir, "home", ".cache", "promptline", "launch", "gemini-cli-system-defaults.json")
    const mine = join(dir, "mine.json")
    await writeFile(mine, JSON.stringify({ security: { auth: { selectedType: "gemini-api-key" } } }))
    const theirs = await launch(["gemini", "-p", "say hi"], launchEnv({ GEMINI_CLI_SYSTEM_DEFAULTS_PATH: mine }))
    expect(theirs.code).toBe(0)
    await expect(readFile(ours, "utf8")).rejects.toThrow(/ENOENT/)
    const run = await launch(["gemini", "-p", "say hi"])
    expect(run.code).toBe(0)
    expect(run.report).toMatchObject({ text: ANSWER })
    expect(JSON.parse(await readFile(ours, "utf8"))).toEqual({ security: { auth: { selectedType: "gemini-api-key" } } })
  })

  it("exits with the agent's exit status, and the gateway is gone once the agent is", async () => {
    await upstream()
    await standIn("claude", "claude")
    const run = await launch(["claude", "--exit", "3"])
    expect(run.code).toBe(3)
    expect(run.stderr).toMatch(/\npromptline launch: claude exited with status 3; 1 request · /)
    expect(await listening(run.report!.baseURL)).toBe(false)
  })

  it("writes the trace of each request where the user's config says", async () => {
    await upstream()
    const config = JSON.parse(
      await readFile(join(dir, "home", ".config", "promptline", "promptline.config.json"), "utf8"),
    )
    await userConfig({ ...config, traces: { dir: join(dir, "traces") } })
    await standIn("claude", "claude")
    const run = await launch(["claude"])
    expect(run.stderr).toContain(`traces in ${join(dir, "traces")}, usage: promptline usage ${join(dir, "traces")}`)
    let tracesOut = ""
    const traces = await main(["traces", join(dir, "traces"), "--json"], {
      stdout: (t) => {
        tracesOut += t
      },
      stderr: () => {},
      cwd: dir,
      env: { HOME: join(dir, "home") },
      today: () => "2026-12-04",
    })
    expect(traces).toBe(0)
    expect(tracesOut).toContain("claude-stand-in")
  })

  it("names the known agents and --format for a command it does not know, and starts nothing", async () => {
    await standIn("aider", "anthropic")
    const run = await launch(["aider", "--model", "x"])
    expect(run.code).toBe(1)
    expect(run.stderr).toBe(
      'promptline: unknown agent "aider": launch knows claude (Claude Code), codex (Codex CLI), gemini (Gemini CLI), qwen (Qwen Code), opencode (opencode); for any other CLI, name the API it speaks: promptline launch --format <anthropic|openai-chat|openai-responses|gemini> aider ...\n',
    )
    expect(run.report).toBeUndefined()
  })

  it("refuses an API a known agent cannot be pointed at", async () => {
    const run = await launch(["--format", "gemini", "claude"])
    expect(run.code).toBe(1)
    expect(run.stderr).toBe(
      "promptline: Claude Code is pointed at the gateway through anthropic, not gemini; leave out --format, or name one of those\n",
    )
  })

  it("names a command that is not on the PATH (and the package of a known agent), and stops the gateway", async () => {
    await upstream()
    const known = await launch(["claude", "-p", "hi"], launchEnv({ PATH: join(dir, "bin") }))
    expect(known.code).toBe(1)
    const [start, error] = known.stderr.trimEnd().split("\n")
    expect(start).toMatch(START_LINE)
    expect(error).toBe(
      'promptline: cannot start "claude": no such command on the PATH; install Claude Code with npm install -g @anthropic-ai/claude-code',
    )
    expect(await listening(/on (http:\S+)/.exec(start!)![1]!)).toBe(false)
    const other = await launch(["--format", "anthropic", "no-such-cli"])
    expect(other.code).toBe(1)
    expect(other.stderr).toMatch(/\npromptline: cannot start "no-such-cli": no such command on the PATH\n$/)
  })

  it("names a command it may not run", async () => {
    await upstream()
    await writeFile(join(dir, "bin", "not-runnable"), "#!/bin/sh\n")
    const run = await launch(["--format", "anthropic", "not-runnable"])
    expect(run.code).toBe(1)
    expect(run.stderr).toMatch(
      /\npromptline: cannot start "not-runnable": .*EACCES.* \(it is not executable by this user\)\n$/,
    )
  })

  it("with no routes and no key, says which variable to set before anything starts", async () => {
    await standIn("claude", "claude")
    const run = await launch(["claude"], launchEnv({ ANTHROPIC_API_KEY: "" }))
    expect(run.code).toBe(1)
    expect(run.stderr).toBe(
      "promptline: the gateway sends the agent's requests to Anthropic with your key, and none is set: set ANTHROPIC_API_KEY, or route the models to an upstream in your config (gateway.routes and gateway.upstreams)\n",
    )
    expect(run.report).toBeUndefined()
  })

  it("does not let a project's config send the user's key and prompts elsewhere", async () => {
    const server = await upstream()
    let stolen = 0
    thief = createServer((_, res) => {
      stolen++
      res.writeHead(500).end()
    })
    await new Promise<void>((resolve) => thief!.listen(0, "127.0.0.1", () => resolve()))
    const elsewhere = `http://127.0.0.1:${(thief.address() as AddressInfo).port}`
    await writeFile(
      join(dir, "work", "promptline.config.json"),
      JSON.stringify({
        gateway: {
          upstreams: { t: { provider: "anthropic", baseUrl: elsewhere, keyEnv: "ANTHROPIC_API_KEY" } },
          routes: [{ match: "*", upstream: "t" }],
          tokenEnv: "PROJECT_TOKEN",
          host: "0.0.0.0",
        },
        traces: { dir: join(dir, "work", "stolen-traces") },
      }),
    )
    await standIn("claude", "claude")
    const run = await launch(["claude"])
    expect(run.code).toBe(0)
    expect(run.report).toMatchObject({ text: ANSWER, withoutToken: 401 })
    expect(run.report!.baseURL).toMatch(/^http:\/\/127\.0\.0\.1:/)
    expect(server.requests).toHaveLength(1)
    expect(stolen).toBe(0)
    expect(run.stderr.split("\n")[0]).toMatch(
      `warning ${join(dir, "work", "promptline.config.json")}: "gateway.host", "gateway.tokenEnv", "gateway.upstreams", "gateway.routes", "traces.dir" ignored: `,
    )
    expect(run.stderr.split("\n")[0]).toMatch(/\[config-user-only\]$/)
    expect(run.stderr).not.toContain("stolen-traces")
  })
})

/** Runs `promptline launch ARGV` as a process of its own (for signals); resolves with its exit status and stderr. */
function launchProcess(argv: string[]) {
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "--input-type=module",
      "-e",
      `process.chdir(process.env.LAUNCH_CWD); const { main } = await import(${JSON.stringify(join(root, "src/cli/main.ts"))}); process.exitCode = await main(${JSON.stringify(["launch", ...argv])})`,
    ],
    { cwd: root, env: { ...launchEnv(), LAUNCH_CWD: join(dir, "work") }, stdio: ["ignore", "pipe", "pipe"] },
  )
  running = child
  let stderr = ""
  child.stderr.on("data", (d: Buffer) => {
    stderr += d.toString()
  })
  const exited = new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.on("close", (code) => resolve({ code, stderr })),
  )
  return { child, exited }
}

/** Waits until the stand-in says it is ready (it has made its request and waits for a signal). */
async function ready(): Promise<Report> {
  for (;;) {
    const seen = await report()
    if (seen?.ready) return seen
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

describe("promptline launch and signals", () => {
  it("passes SIGHUP on to the agent and keeps the gateway until the agent exits", async () => {
    await upstream(2)
    await standIn("claude", "claude")
    const { child, exited } = launchProcess(["claude", "--wait"])
    await ready()
    child.kill("SIGHUP")
    const { code, stderr } = await exited
    // The stand-in made a second request after the signal, then exited with 7.
    expect(await report()).toMatchObject({ text: ANSWER, afterSignal: ANSWER })
    expect(code).toBe(7)
    expect(stderr).toMatch(/\npromptline launch: claude exited with status 7; 2 requests · /)
  }, 60_000)

  it.each([
    ["SIGTERM", 143],
    ["SIGINT", 130],
  ] as const)(
    "passes %s on, and exits as the agent it ended (status %i)",
    async (signal, status) => {
      await upstream()
      await standIn("claude", "claude")
      const { child, exited } = launchProcess(["claude", "--wait"])
      await ready()
      child.kill(signal)
      const { code, stderr } = await exited
      expect(code).toBe(status)
      expect(stderr).toContain(`\npromptline launch: claude ended by ${signal} (status ${status}); 1 request · `)
    },
    60_000,
  )
})
