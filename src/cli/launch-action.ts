// The action of `promptline launch`, loaded only when the command runs (see launch.ts for its flags).
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { constants } from "node:os"
import { join, resolve } from "node:path"
import { makePrivateFolder, writeFileAtomic } from "../atomic-write.js"
import { defaultTraceDir } from "../cache/trace-dir.js"
import { usageSummary } from "../cache/usage-text.js"
import { promptlineCacheDir } from "../context/user-roots.js"
import { formatDiagnostic } from "../diagnostics.js"
import { PromptlineError } from "../errors.js"
import { logField } from "../gateway/log.js"
import { startGateway } from "../gateway/server.js"
import { PROVIDERS } from "../providers/endpoints.js"
import type { BuiltInShape } from "../providers/formats.js"
import { homeOf } from "./context-options.js"
import { gatewayRunConfig, traceHooks } from "./gateway-config.js"
import type { CliIO } from "./io.js"
import type { LaunchFlags } from "./launch.js"
import {
  type AgentSetup,
  agentEnvironment,
  agentFormats,
  CLIENT_FORMATS,
  fillSetup,
  LAUNCH_AGENTS,
  LAUNCH_TOKEN_ENV,
  type LaunchAgent,
  launchAgent,
  SDK_SETUPS,
  type SetupFile,
} from "./launch-agents.js"
import { launchGatewayConfig } from "./launch-gateway.js"

/** The signals passed on to the agent; while it runs, launch itself does not stop on them. */
const FORWARDED: readonly NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"]

/** How long answers still running when the agent exits may go on (at most the config's shutdown grace). */
const DRAIN_MS = 2_000

/** Every provider key variable of the registry: they stay with the gateway, never reach the agent. */
const PROVIDER_KEY_ENV: readonly string[] = Object.values(PROVIDERS).flatMap((p) => p.keyEnv)

/** The agent to run and how it is pointed at the gateway. */
interface LaunchPlan {
  command: string
  /** The name in messages. */
  name: string
  format: BuiltInShape
  setup: AgentSetup
  agent?: LaunchAgent
}

/** The plan for `launch [--format F] COMMAND`: a known agent in its default or chosen API, or any CLI with `--format`. */
function planOf(command: string, formatFlag: string | undefined): LaunchPlan {
  const agent = launchAgent(command)
  const format = formatFlag as BuiltInShape | undefined
  if (agent) {
    const chosen = format ?? agentFormats(agent)[0]!
    const setup = agent.formats[chosen]
    if (!setup)
      throw new PromptlineError(
        "invalid-option",
        `${agent.name} is pointed at the gateway through ${agentFormats(agent).join(" or ")}, not ${chosen}; leave out --format, or name one of those`,
      )
    return { command, name: agent.name, format: chosen, setup, agent }
  }
  if (format === undefined)
    throw new PromptlineError(
      "launch-unknown-agent",
      `unknown agent "${command}": launch knows ${LAUNCH_AGENTS.map((a) => `${a.command} (${a.name})`).join(", ")}; for any other CLI, name the API it speaks: promptline launch --format <${CLIENT_FORMATS.join("|")}> ${command} ...`,
    )
  return { command, name: command, format, setup: SDK_SETUPS[format] }
}

/** How the agent ended: its exit status (128 + the signal's number when a signal ended it). */
interface AgentExit {
  status: number
  signal?: NodeJS.Signals
}

/** Runs the agent in the foreground on this terminal; resolves when it exits, rejects when it cannot start. */
function runAgent(
  plan: LaunchPlan,
  args: string[],
  env: Record<string, string>,
  cwd: string,
  started: (child: ChildProcess) => void,
): Promise<AgentExit> {
  return new Promise((done, fail) => {
    let child: ChildProcess
    try {
      child = spawn(plan.command, args, { stdio: "inherit", env, cwd })
    } catch (error) {
      fail(startError(plan, error as NodeJS.ErrnoException))
      return
    }
    started(child)
    // Failing to signal an agent that is ending anyway is no failure of the launch.
    child.on("error", (error: NodeJS.ErrnoException) => {
      if (child.pid === undefined) fail(startError(plan, error))
    })
    child.once("exit", (code, signal) => {
      done(signal ? { status: 128 + (constants.signals[signal] ?? 0), signal } : { status: code ?? 1 })
    })
  })
}

/** Why the agent did not start, naming the command (and the package that installs a known agent). */
function startError(plan: LaunchPlan, error: NodeJS.ErrnoException): PromptlineError {
  if (error.code === "ENOENT")
    return new PromptlineError(
      "launch-command-not-found",
      `cannot start "${plan.command}": no such command on the PATH${plan.agent ? `; install ${plan.agent.name} with npm install -g ${plan.agent.npm}` : ""}`,
    )
  return new PromptlineError(
    "launch-command-failed",
    `cannot start "${plan.command}": ${error.message}${error.code === "EACCES" ? " (it is not executable by this user)" : ""}`,
  )
}

/**
 * Writes the set-up's settings files the agent is to be given (in `launch/` of promptline's cache folder, private
 * to the user) and answers the variables that name them; a file the user's environment or an administrator
 * already provides is left to them.
 */
async function writeSetupFiles(files: readonly SetupFile[], io: CliIO): Promise<Record<string, string>> {
  const named: Record<string, string> = {}
  for (const file of files) {
    if (io.env[file.env] !== undefined || file.heldAt.some((path) => existsSync(path))) continue
    const dir = join(promptlineCacheDir(homeOf(io), io.env), "launch")
    await makePrivateFolder(dir)
    const path = join(dir, file.name)
    await writeFileAtomic(path, `${JSON.stringify(file.json, null, 2)}\n`)
    named[file.env] = path
  }
  return named
}

/**
 * Starts a gateway on a free loopback port with the user's config and a fresh token, runs the agent pointed at it
 * until it exits (signals passed on), stops the gateway; returns the agent's exit status.
 */
export async function launchAction(command: string, args: string[], flags: LaunchFlags, io: CliIO): Promise<number> {
  const plan = planOf(command, flags.format)
  if (!io.secret) throw new Error("launch needs a source of random secrets (CliIO.secret)")
  const token = io.secret()
  const run = await gatewayRunConfig(flags.config, io)
  for (const d of run.diagnostics) if (d.level !== "info") io.stderr(`${formatDiagnostic(d)}\n`)
  const config = launchGatewayConfig(run.gateway, plan.format, io.env)
  const traceDir =
    flags.trace !== undefined ? resolve(io.cwd, flags.trace) : (run.traces?.dir ?? defaultTraceDir(homeOf(io), io.env))
  // Said once the agent has exited: the agent owns the terminal while it runs.
  const afterwards = new Set<string>()
  const tracing = await traceHooks(traceDir, run, (line) => afterwards.add(line))
  const writing = new Set<Promise<void>>()
  const gateway = await startGateway({
    config,
    env: { ...io.env, [LAUNCH_TOKEN_ENV]: token },
    models: run.models,
    host: "127.0.0.1",
    port: 0,
    ...(io.now ? { clock: io.now } : {}),
    onRequest: (record) => {
      const write = tracing.onRequest(record).finally(() => writing.delete(write))
      writing.add(write)
    },
    answerHeaders: tracing.answerHeaders,
    onError: (error, where) =>
      afterwards.add(`error while serving (${where}): ${logField(error.message, 1000)} [gateway-internal]`),
  })
  // From here to the end launch outlives the agent: the signals go to it, and what follows runs either way.
  let agent: ChildProcess | undefined
  const forward = (signal: NodeJS.Signals) => {
    agent?.kill(signal)
  }
  for (const signal of FORWARDED) process.on(signal, forward)
  try {
    io.stderr(
      `promptline launch: ${plan.name} through the gateway on ${gateway.url} (${plan.format}, token-guarded); traces in ${traceDir}, usage: promptline usage ${traceDir}\n`,
    )
    const filled = fillSetup(plan.setup, gateway.url, token)
    const hidden = new Set([...PROVIDER_KEY_ENV, ...(plan.agent?.unset ?? []), LAUNCH_TOKEN_ENV])
    const files = await writeSetupFiles(plan.setup.files ?? [], io)
    const env = agentEnvironment(io.env, hidden, { ...filled.env, ...files })
    const exit = await runAgent(plan, [...filled.args, ...args], env, io.cwd, (child) => {
      agent = child
    })
    await gateway.close(Math.min(gateway.settings.shutdownGraceMs, DRAIN_MS))
    await Promise.all(writing)
    for (const line of afterwards) io.stderr(`${line}\n`)
    const ended = exit.signal ? `ended by ${exit.signal} (status ${exit.status})` : `exited with status ${exit.status}`
    io.stderr(`promptline launch: ${plan.command} ${ended}; ${usageSummary(gateway.usage())}\n`)
    return exit.status
  } finally {
    await gateway.close(0)
    for (const signal of FORWARDED) process.off(signal, forward)
  }
}
