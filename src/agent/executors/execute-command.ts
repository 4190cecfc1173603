import { type ChildProcess, spawn } from "node:child_process"
import { stripVTControlCharacters } from "node:util"
import { z } from "zod"
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

/** Sends a signal to the child's whole process group (the child leads its own group). */
function killTree(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return
  if (isWindows) {
    spawn("taskkill", ["/pid", String(child.pid), "/T", "/F"], { stdio: "ignore", windowsHide: true })
    return
  }
  try {
    process.kill(-child.pid, signal)
  } catch {
    // The group is already gone.
  }
}

/**
 * Whether any process is left in the child's process group (never probed on Windows). A member that
 * died but was not yet reaped still counts, so a wait on this may run to the end of the grace period.
 */
function groupAlive(child: ChildProcess): boolean {
  if (isWindows || child.pid === undefined) return false
  try {
    process.kill(-child.pid, 0)
    return true
  } catch (error) {
    // EPERM: a member exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
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
  /** Output pipes were still held open by background processes when the command exited. */
  detachedOutput: boolean
}

function run(command: string, env: ResolvedEnv, timeoutMs: number): Promise<RunResult> {
  const output = new OutputBuffer(env.limits.commandOutputBytes)
  const base = env.processEnv ?? process.env
  const child = spawn(command, {
    cwd: env.workspace,
    shell: shellOf(env),
    detached: !isWindows,
    stdio: ["ignore", "pipe", "pipe"],
    windowsHide: true,
    env: { PAGER: "cat", GIT_PAGER: "cat", ...base },
  })
  const result: RunResult = {
    exitCode: null,
    signal: null,
    timedOut: false,
    cancelled: false,
    output,
    detachedOutput: false,
  }
  return new Promise((resolve) => {
    let grace: NodeJS.Timeout | undefined
    let poll: NodeJS.Timeout | undefined
    let killed = false
    let settled = false
    let delivered = false
    const deliver = () => {
      if (delivered) return
      delivered = true
      clearTimeout(grace)
      clearInterval(poll)
      resolve(result)
    }
    const stop = () => {
      if (grace) return
      killTree(child, "SIGTERM")
      grace = setTimeout(() => {
        killed = true
        killTree(child, "SIGKILL")
        if (settled) deliver()
      }, env.limits.killGraceMs)
      grace.unref()
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
    const finish = () => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      env.signal.removeEventListener("abort", onAbort)
      // The shell may die on SIGTERM while a child that ignores it lives on in the group: the
      // result then waits until the group is empty or the grace period ends in SIGKILL.
      if (grace && !killed && groupAlive(child)) {
        grace.ref()
        poll = setInterval(() => {
          if (!groupAlive(child)) deliver()
        }, 50)
        return
      }
      deliver()
    }
    child.stdout?.on("data", (chunk: Buffer) => output.push(chunk))
    child.stderr?.on("data", (chunk: Buffer) => output.push(chunk))
    child.on("error", (error) => {
      result.error = error
      finish()
    })
    child.on("exit", (code, signal) => {
      result.exitCode = code
      result.signal = signal
      // Background processes may keep the pipes open; read what is there, then stop waiting.
      setTimeout(() => {
        if (!settled) {
          result.detachedOutput = true
          child.stdout?.destroy()
          child.stderr?.destroy()
          finish()
        }
      }, 500).unref()
    })
    child.on("close", finish)
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
    const notes = result.detachedOutput
      ? "\n[background processes still hold the output; later output is not shown]"
      : ""
    const content = `${text === "" ? "(no output)" : text}\n${status}${notes}`
    const details = {
      exitCode: result.exitCode,
      signal: result.signal,
      timedOut: result.timedOut,
      cancelled: result.cancelled,
      omittedBytes: result.output.omitted,
    }
    const summary = `ran \`${short}\` (${brief})`
    const ok = !result.timedOut && !result.cancelled && !result.signal && result.exitCode === 0
    return ok ? success(content, summary, { details }) : failure(content, summary, { details })
  },
})
