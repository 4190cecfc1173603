import { spawn } from "node:child_process"
import { stripVTControlCharacters } from "node:util"
import { z } from "zod"
import {
  anyRunning,
  killTree,
  markEnv,
  newProcessMark,
  type ProcessTree,
  signalTree,
  treeAlive,
} from "../../process-tree.js"
import { childEnv } from "../child-env.js"
import { booleanArg, positiveNumberArg, taskProgressArg } from "./args.js"
import { failure, oneLine, success } from "./outcome.js"
import { OutputBuffer } from "./output-buffer.js"
import { defineExecutor, type ResolvedEnv } from "./types.js"

const schema = z.object({
  command: z.string({ error: "expected the command line as a string" }).trim().min(1, "must not be empty"),
  requires_approval: booleanArg.optional(),
  timeout: positiveNumberArg.optional(),
  task_progress: taskProgressArg,
})

const isWindows = process.platform === "win32"

/** The shell commands run through: the env's, else $SHELL, else /bin/sh (cmd.exe on Windows). */
function shellOf(env: ResolvedEnv): string | true {
  if (env.shell) return env.shell
  if (isWindows) return true
  return (env.processEnv ?? process.env).SHELL || "/bin/sh"
}

/** Turns terminal output into plain text: no colour codes, progress-bar rewrites collapsed. */
export function cleanOutput(text: string): string {
  return stripVTControlCharacters(text)
    .replace(/\r\n/g, "\n")
    .split("\n")
    .map((line) => (line.includes("\r") ? (line.split("\r").filter(Boolean).pop() ?? "") : line))
    .join("\n")
}

interface RunResult {
  exitCode: number | null
  signal: NodeJS.Signals | null
  timedOut: boolean
  cancelled: boolean
  output: OutputBuffer
  error?: Error
  /** Processes the command started were still running when it exited, and were stopped. */
  stoppedBackground: boolean
  /** Output pipes stayed open after every process we can see had ended. */
  detachedOutput: boolean
}

/**
 * Runs the command as the leader of its own process group, marked (see src/process-tree.ts) so that
 * every process it starts is found again, even one that left the group with setsid. The result comes
 * once the shell has exited and no process of the tree is left: at the timeout or on cancel the tree
 * gets SIGTERM, then SIGKILL after the grace period; processes still running when the shell exits on
 * its own are stopped the same way.
 */
function run(command: string, env: ResolvedEnv, timeoutMs: number): Promise<RunResult> {
  const output = new OutputBuffer(env.limits.commandOutputBytes)
  const base = childEnv(env.processEnv ?? process.env, env)
  const mark = newProcessMark()
  const child = spawn(command, {
    cwd: env.workspace,
    shell: shellOf(env),
    detached: !isWindows,
    stdio: ["ignore", "pipe", "pipe"],
    windowsHide: true,
    env: { PAGER: "cat", GIT_PAGER: "cat", ...base, ...markEnv(mark) },
  })
  const tree: ProcessTree | undefined = child.pid === undefined ? undefined : { pid: child.pid, mark }
  const result: RunResult = {
    exitCode: null,
    signal: null,
    timedOut: false,
    cancelled: false,
    output,
    stoppedBackground: false,
    detachedOutput: false,
  }
  return new Promise((resolve) => {
    let grace: NodeJS.Timeout | undefined
    let poll: NodeJS.Timeout | undefined
    let drain: NodeJS.Timeout | undefined
    let stopping = false
    /** The processes the SIGTERM reached: waited for too, even those that no longer look like the tree's. */
    let signalled: number[] = []
    let exited = false
    let closed = false
    let delivered = false
    const deliver = () => {
      if (delivered) return
      delivered = true
      clearTimeout(timer)
      clearTimeout(grace)
      clearTimeout(drain)
      clearInterval(poll)
      env.signal.removeEventListener("abort", onAbort)
      child.stdout?.destroy()
      child.stderr?.destroy()
      resolve(result)
    }
    const stop = () => {
      if (stopping || !tree) return
      stopping = true
      signalled = signalTree(tree, "SIGTERM")
      grace = setTimeout(() => void killTree(tree, signalled).then(settle), env.limits.killGraceMs)
    }
    // The result waits for the shell to exit and the tree to be empty; then for the pipes to close,
    // unless a process we cannot see holds them: that wait is cut after half a second.
    const settle = () => {
      if (delivered || !exited) return
      if (tree && (treeAlive(tree) || anyRunning(signalled))) {
        poll ??= setInterval(settle, 50)
        return
      }
      clearInterval(poll)
      if (closed) return deliver()
      drain ??= setTimeout(() => {
        result.detachedOutput = true
        deliver()
      }, 500)
    }
    const timer = setTimeout(() => {
      result.timedOut = true
      stop()
    }, timeoutMs)
    const onAbort = () => {
      result.cancelled = true
      stop()
    }
    if (env.signal.aborted) onAbort()
    else env.signal.addEventListener("abort", onAbort, { once: true })
    child.stdout?.on("data", (chunk: Buffer) => output.push(chunk))
    child.stderr?.on("data", (chunk: Buffer) => output.push(chunk))
    child.on("error", (error) => {
      result.error = error
      if (tree) void killTree(tree)
      deliver()
    })
    child.on("exit", (code, signal) => {
      exited = true
      result.exitCode = code
      result.signal = signal
      clearTimeout(timer)
      if (!stopping && tree && treeAlive(tree)) {
        result.stoppedBackground = true
        stop()
      }
      settle()
    })
    child.on("close", () => {
      closed = true
      settle()
    })
  })
}

/** execute_command: runs a command line through the shell in the workspace, with a timeout and an output cap. */
export const executeCommandExecutor = defineExecutor({
  id: "execute_command",
  schema,
  async run(input, env) {
    const timeoutMs = Math.min(
      input.timeout !== undefined ? input.timeout * 1000 : env.limits.commandTimeoutMs,
      env.limits.commandMaxTimeoutMs,
    )
    const short = oneLine(input.command, 50)
    const result = await run(input.command, env, timeoutMs)
    if (result.error) {
      return failure(`The command could not be started: ${result.error.message}`, `ran \`${short}\`: could not start`)
    }
    const text = cleanOutput(result.output.text()).trimEnd()
    const seconds = Math.round(timeoutMs / 100) / 10
    let status: string
    let brief: string
    if (result.timedOut) {
      status = `[timed out after ${seconds} s: the command and its child processes were stopped]`
      brief = `timed out after ${seconds} s`
    } else if (result.cancelled) {
      status = "[cancelled: the command and its child processes were stopped]"
      brief = "cancelled"
    } else if (result.signal) {
      status = `[killed by signal ${result.signal}]`
      brief = result.signal
    } else {
      status = `[exit code ${result.exitCode}]`
      brief = `exit ${result.exitCode}`
    }
    let notes = ""
    if (result.stoppedBackground) notes += "\n[background processes the command left running were stopped]"
    if (result.detachedOutput)
      notes += "\n[a process outside the command's reach still holds the output; later output is not shown]"
    const content = `${text === "" ? "(no output)" : text}\n${status}${notes}`
    const details = {
      exitCode: result.exitCode,
      signal: result.signal,
      timedOut: result.timedOut,
      cancelled: result.cancelled,
      stoppedBackground: result.stoppedBackground,
      omittedBytes: result.output.omitted,
    }
    const summary = `ran \`${short}\` (${brief})`
    const ok = !result.timedOut && !result.cancelled && !result.signal && result.exitCode === 0
    return ok ? success(content, summary, { details }) : failure(content, summary, { details })
  },
})
