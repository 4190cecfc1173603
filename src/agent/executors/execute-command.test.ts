import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { cleanOutput } from "./execute-command.js"
import { tempWorkspace, textOf } from "./test-helpers/workspace.js"

const posix = process.platform !== "win32"
const linux = process.platform === "linux"
const STOPPED_NOTE = "[background processes the command left running were stopped]"

/** The pids a command printed as `<label> <pid>` lines. */
function pidsOf(text: string, label: string): number[] {
  return [...text.matchAll(new RegExp(`^${label} (\\d+)$`, "gm"))].map((m) => Number(m[1]))
}

/** Kills what a failed test left behind. */
function reap(pids: number[]): void {
  for (const pid of pids) if (alive(pid)) process.kill(pid, "SIGKILL")
}

/** Whether a process id is still running (a zombie waiting to be reaped counts as ended). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z"
  } catch {
    return true
  }
}

describe.runIf(posix)("execute_command", () => {
  it("runs in the workspace through the shell and reports the exit code", async () => {
    const ws = await tempWorkspace()
    try {
      await ws.write("hello.txt", "hi\n")
      const out = await ws.run("execute_command", {
        command: "pwd && cat hello.txt && echo err >&2",
        requires_approval: false,
      })
      expect(out.isError).toBe(false)
      expect(textOf(out)).toBe(`${ws.root}\nhi\nerr\n[exit code 0]`)
      expect(out.summary).toBe("ran `pwd && cat hello.txt && echo err >&2` (exit 0)")
      expect(out.details).toMatchObject({ exitCode: 0, signal: null, timedOut: false })
    } finally {
      await ws.dispose()
    }
  })

  it("reports a failing command as an error with its exit code", async () => {
    const ws = await tempWorkspace()
    try {
      const out = await ws.run("execute_command", { command: "echo broken; exit 3" })
      expect(out.isError).toBe(true)
      expect(textOf(out)).toBe("broken\n[exit code 3]")
      expect(out.summary).toContain("(exit 3)")
    } finally {
      await ws.dispose()
    }
  })

  it("closes stdin, so a command waiting for input ends at once", async () => {
    const ws = await tempWorkspace()
    try {
      const out = await ws.run("execute_command", { command: "cat; echo after" })
      expect(textOf(out)).toBe("after\n[exit code 0]")
    } finally {
      await ws.dispose()
    }
  })

  it("kills a hanging command and its children at the timeout", async () => {
    const ws = await tempWorkspace()
    try {
      const out = await ws.run(
        "execute_command",
        { command: "sleep 60 & echo child $!; sleep 60", timeout: 0.5 },
        { limits: { killGraceMs: 500 } },
      )
      expect(out.isError).toBe(true)
      expect(out.details).toMatchObject({ timedOut: true })
      expect(textOf(out)).toContain("[timed out after 0.5 s: the command and its child processes were stopped]")
      const pid = Number(/child (\d+)/.exec(textOf(out))?.[1])
      expect(pid).toBeGreaterThan(0)
      await new Promise((r) => setTimeout(r, 200))
      expect(alive(pid)).toBe(false)
    } finally {
      await ws.dispose()
    }
  })

  it("escalates to SIGKILL when a command ignores SIGTERM", async () => {
    const ws = await tempWorkspace()
    try {
      const out = await ws.run(
        "execute_command",
        { command: "trap '' TERM; echo started; while true; do sleep 0.1; done", timeout: "0.3" },
        { limits: { killGraceMs: 300 } },
      )
      expect(out.details).toMatchObject({ timedOut: true })
      expect(textOf(out)).toContain("started")
    } finally {
      await ws.dispose()
    }
  })

  it("kills a child that ignores SIGTERM even when the shell itself dies on SIGTERM", async () => {
    const ws = await tempWorkspace()
    let pid = 0
    try {
      const out = await ws.run(
        "execute_command",
        { command: "(trap '' TERM; exec sleep 37) & echo child $!; wait", timeout: 0.3 },
        { limits: { killGraceMs: 1000 } },
      )
      expect(out.details).toMatchObject({ timedOut: true })
      pid = Number(/child (\d+)/.exec(textOf(out))?.[1])
      expect(pid).toBeGreaterThan(0)
      // The result comes after SIGKILL was sent; give the system a moment to reap the child.
      await new Promise((r) => setTimeout(r, 200))
      expect(alive(pid)).toBe(false)
    } finally {
      if (pid > 0 && alive(pid)) process.kill(pid, "SIGKILL")
      await ws.dispose()
    }
  })

  it("stops the command when the call is cancelled", async () => {
    const ws = await tempWorkspace()
    try {
      const controller = new AbortController()
      setTimeout(() => controller.abort(), 200)
      const out = await ws.run("execute_command", { command: "sleep 30" }, { signal: controller.signal })
      expect(out.isError).toBe(true)
      expect(out.details).toMatchObject({ cancelled: true })
    } finally {
      await ws.dispose()
    }
  })

  it("reports the signal that killed a command", async () => {
    const ws = await tempWorkspace()
    try {
      const out = await ws.run("execute_command", { command: "kill -9 $$" })
      expect(out.isError).toBe(true)
      expect(textOf(out)).toContain("[killed by signal SIGKILL]")
    } finally {
      await ws.dispose()
    }
  })

  it("keeps the head and the tail of long output with a notice", async () => {
    const ws = await tempWorkspace()
    try {
      const out = await ws.run("execute_command", { command: "seq 1 20000" }, { limits: { commandOutputBytes: 200 } })
      const text = textOf(out)
      expect(text.startsWith("1\n2\n3\n")).toBe(true)
      expect(text).toContain("19999\n20000\n[exit code 0]")
      expect(text).toMatch(/\[… \d+ bytes of output omitted; the start and the end are shown …\]/)
      expect(text.length).toBeLessThan(400)
    } finally {
      await ws.dispose()
    }
  })

  it("stops background processes left running when the command exits", async () => {
    const ws = await tempWorkspace()
    let pid = 0
    try {
      const out = await ws.run("execute_command", { command: "(sleep 5; echo late) & echo child $!; echo now" })
      expect(textOf(out)).toContain("now")
      expect(textOf(out)).not.toMatch(/^late$/m)
      expect(textOf(out)).toContain(STOPPED_NOTE)
      expect(out.isError).toBe(false)
      expect(out.details).toMatchObject({ exitCode: 0, stoppedBackground: true })
      pid = Number(/child (\d+)/.exec(textOf(out))?.[1])
      expect(pid).toBeGreaterThan(0)
      expect(alive(pid)).toBe(false)
    } finally {
      if (pid > 0 && alive(pid)) process.kill(pid, "SIGKILL")
      await ws.dispose()
    }
  })

  it("uses the given environment and shell", async () => {
    const ws = await tempWorkspace()
    try {
      const out = await ws.run(
        "execute_command",
        { command: "echo $GREETING" },
        { shell: "/bin/sh", processEnv: { PATH: process.env.PATH, GREETING: "hello there" } },
      )
      expect(textOf(out)).toBe("hello there\n[exit code 0]")
    } finally {
      await ws.dispose()
    }
  })

  it("rejects a missing command and a bad timeout by name", async () => {
    const ws = await tempWorkspace()
    try {
      expect(textOf(await ws.run("execute_command", {}))).toContain("missing required parameter 'command'")
      expect(textOf(await ws.run("execute_command", { command: "true", timeout: -1 }))).toContain("parameter 'timeout'")
    } finally {
      await ws.dispose()
    }
  })
})

describe.runIf(linux)("execute_command and processes that leave the process group", () => {
  it("kills a setsid daemon whose parent exited when the command times out", async () => {
    const ws = await tempWorkspace()
    let pids: number[] = []
    try {
      const out = await ws.run(
        "execute_command",
        {
          command: "setsid sh -c 'sleep 301 & echo daemon $!'; setsid sleep 302 & echo daemon $!; sleep 60",
          timeout: 0.5,
        },
        { limits: { killGraceMs: 300 } },
      )
      expect(out.details).toMatchObject({ timedOut: true })
      pids = pidsOf(textOf(out), "daemon")
      expect(pids).toHaveLength(2)
      expect(pids.filter(alive)).toEqual([])
    } finally {
      reap(pids)
      await ws.dispose()
    }
  })

  it("kills a setsid daemon left behind by a command that exited normally", async () => {
    const ws = await tempWorkspace()
    let pids: number[] = []
    try {
      const out = await ws.run("execute_command", {
        command: "setsid sh -c 'sleep 303 >/dev/null 2>&1 & echo daemon $!'; echo done",
      })
      pids = pidsOf(textOf(out), "daemon")
      expect(out.isError).toBe(false)
      expect(textOf(out)).toContain(STOPPED_NOTE)
      expect(pids).toHaveLength(1)
      expect(pids.filter(alive)).toEqual([])
    } finally {
      reap(pids)
      await ws.dispose()
    }
  })
})

describe.runIf(posix)("execute_command and secrets in the environment", () => {
  it("removes provider keys, secret-looking names and the host's secret names from a command's environment", async () => {
    const ws = await tempWorkspace()
    try {
      const processEnv = {
        PATH: process.env.PATH,
        ANTHROPIC_API_KEY: "sk-ant-1",
        OPENAI_API_KEY: "sk-oai-2",
        GEMINI_API_KEY: "g-3",
        DASHSCOPE_API_KEY: "d-4",
        DEPLOY_TOKEN: "t-5",
        session_secret: "s-6",
        COMPANY_CREDENTIALS: "c-7",
        GH_TOKEN: "gh-8",
        PLAIN_SETTING: "visible",
      }
      const out = await ws.run(
        "execute_command",
        { command: "env" },
        { processEnv, secretEnv: ["COMPANY_CREDENTIALS"], keepEnv: ["GH_TOKEN"] },
      )
      const text = textOf(out)
      expect(text).toContain("PLAIN_SETTING=visible")
      expect(text).toContain("GH_TOKEN=gh-8")
      // Whole values after `=`: a short value could also occur inside another variable (the random process mark).
      const values = text.split("\n").map((line) => line.slice(line.indexOf("=") + 1))
      for (const value of ["sk-ant-1", "sk-oai-2", "g-3", "d-4", "t-5", "s-6", "c-7"])
        expect(values).not.toContain(value)
    } finally {
      await ws.dispose()
    }
  })

  it("removes them from the agent's own environment when no processEnv is given", async () => {
    const ws = await tempWorkspace()
    process.env.XAI_API_KEY = "xai-secret-value"
    try {
      const out = await ws.run("execute_command", { command: "printenv XAI_API_KEY; echo end" })
      expect(textOf(out)).toBe("end\n[exit code 0]")
    } finally {
      delete process.env.XAI_API_KEY
      await ws.dispose()
    }
  })
})

describe("cleanOutput", () => {
  it("removes colour codes and collapses progress-bar rewrites", () => {
    expect(cleanOutput("\u001b[31mred\u001b[0m\r\nprogress 10%\rprogress 100%\ndone")).toBe("red\nprogress 100%\ndone")
  })
})
