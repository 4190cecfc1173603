import { spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { killTree, markEnv, newProcessMark, PROCESS_MARK_ENV, treeAlive, treeMembers } from "./process-tree.js"

/** Whether a process id is running (a zombie counts as ended). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z"
  } catch {
    return false
  }
}

/** Starts `script` in sh as a marked group leader; resolves with its tree and the pids it printed. */
async function startTree(script: string, env: NodeJS.ProcessEnv = process.env) {
  const mark = newProcessMark()
  const child = spawn("/bin/sh", ["-c", script], {
    detached: true,
    stdio: ["ignore", "pipe", "ignore"],
    env: { ...env, ...markEnv(mark) },
  })
  let out = ""
  child.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString()
  })
  await new Promise<void>((done) => child.stdout.once("end", () => done()))
  const pids = [...out.matchAll(/\d+/g)].map((m) => Number(m[0]))
  return { tree: { pid: child.pid!, mark }, pids }
}

describe.runIf(process.platform === "linux")("process trees", () => {
  it("finds a setsid daemon whose parent exited by its mark, and kills it", async () => {
    // The shell prints the daemon's pid, closes its output and exits; the daemon is reparented.
    const { tree, pids } = await startTree("setsid sleep 331 >/dev/null 2>&1 & echo $!")
    try {
      expect(pids).toHaveLength(1)
      expect(treeMembers(tree)).toContain(pids[0])
      expect(await killTree(tree)).toBe(true)
      expect(running(pids[0]!)).toBe(false)
      expect(treeAlive(tree)).toBe(false)
    } finally {
      for (const pid of pids) if (running(pid)) process.kill(pid, "SIGKILL")
    }
  })

  it("finds a descendant that cleared its environment while its marked parent lives", async () => {
    const { tree, pids } = await startTree(
      "sh -c 'env -i setsid sleep 332 >/dev/null 2>&1 & echo $!; exec sleep 333 >/dev/null 2>&1' &",
    )
    try {
      expect(pids).toHaveLength(1)
      expect(treeMembers(tree)).toContain(pids[0])
      expect(await killTree(tree)).toBe(true)
      expect(running(pids[0]!)).toBe(false)
    } finally {
      for (const pid of pids) if (running(pid)) process.kill(pid, "SIGKILL")
    }
  })

  it("does not count processes with another mark or none", async () => {
    const other = await startTree("setsid sleep 334 >/dev/null 2>&1 & echo $!")
    const { tree } = await startTree("exit 0")
    try {
      expect(treeMembers(tree)).toEqual([])
      expect(treeMembers(other.tree)).toEqual(other.pids)
      expect(treeMembers({ pid: other.tree.pid, mark: newProcessMark() })).toEqual([])
    } finally {
      await killTree(other.tree)
    }
    expect(PROCESS_MARK_ENV).toBe("PROMPTLINE_PROCESS_MARK")
  })
})
