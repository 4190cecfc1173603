import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { cleanOutput } from "./execute-command.js"
import { tempWorkspace, textOf } from "./test-helpers/workspace.js"

const posix = process.platform !== "win32"

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

  it("does not wait for background processes that keep the output open", async () => {
    const ws = await tempWorkspace()
    try {
      const out = await ws.run("execute_command", { command: "(sleep 5; echo late) & echo now" })
      expect(textOf(out)).toContain("now")
      expect(textOf(out)).not.toMatch(/^late$/m)
      expect(textOf(out)).toContain("[background processes still hold the output; later output is not shown]")
      expect(out.details).toMatchObject({ exitCode: 0 })
    } finally {
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

describe("cleanOutput", () => {
  it("removes colour codes and collapses progress-bar rewrites", () => {
    expect(cleanOutput("\u001b[31mred\u001b[0m\r\nprogress 10%\rprogress 100%\ndone")).toBe("red\nprogress 100%\ndone")
  })
})
