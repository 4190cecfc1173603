import { randomUUID } from "node:crypto"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { lazyModule } from "./lazy-module.js"

/** node:child_process (and the net and stream modules it loads), required with the first process started. */
const childProcess = lazyModule<typeof import("node:child_process")>("node:child_process")

/**
 * The processes a command or an MCP server starts, found and stopped as one tree. A child is spawned as
 * the leader of its own process group and with a mark in its environment (PROCESS_MARK_ENV). Every
 * process that inherits the environment keeps the mark, so on Linux a process that left the group with
 * `setsid` and whose parent exited (reparented to init) is still found by reading `/proc/<pid>/environ`.
 * The tree is: the group's members, the marked processes, and every descendant of either. Elsewhere on
 * POSIX only the process group can be reached; on Windows `taskkill /T` stops the tree by parent links.
 */

/** The environment variable that marks every process of one tree. */
export const PROCESS_MARK_ENV = "PROMPTLINE_PROCESS_MARK"

const isWindows = process.platform === "win32"
const hasProc = !isWindows && existsSync("/proc/self/stat")

/** A process tree: the leader's pid (also its process group id) and the mark its environment carries. */
export interface ProcessTree {
  pid: number
  mark: string
}

/** A new mark for one tree, unique on this machine. */
export function newProcessMark(): string {
  return `${process.pid}-${randomUUID()}`
}

/** The environment entry that marks a tree's processes, to spread into a child's environment. */
export function markEnv(mark: string): Record<string, string> {
  return { [PROCESS_MARK_ENV]: mark }
}

interface ProcEntry {
  pid: number
  ppid: number
  pgrp: number
}

/** The live (not zombie) processes from /proc/<pid>/stat; fields after the command name are space-separated. */
function listProcesses(): ProcEntry[] {
  const out: ProcEntry[] = []
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue
    let stat: string
    try {
      stat = readFileSync(`/proc/${name}/stat`, "utf8")
    } catch {
      continue // ended while we looked
    }
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    const state = fields[0]
    if (state === "Z" || state === "X") continue
    out.push({ pid: Number(name), ppid: Number(fields[1]), pgrp: Number(fields[2]) })
  }
  return out
}

function isMarked(pid: number, needle: Buffer): boolean {
  try {
    const environ = readFileSync(`/proc/${pid}/environ`)
    // Each entry ends in NUL; the needle is `\0NAME=mark\0`, so the first entry is checked with a NUL in front.
    return Buffer.concat([Buffer.from([0]), environ]).includes(needle)
  } catch {
    return false // another user's process, or ended
  }
}

/**
 * The ids of the live processes of the tree (Linux: group members, marked processes and their
 * descendants; elsewhere an empty list, see treeAlive). Zombies are not counted.
 */
export function treeMembers(tree: ProcessTree): number[] {
  if (!hasProc) return []
  const needle = Buffer.from(`\0${PROCESS_MARK_ENV}=${tree.mark}\0`)
  const all = listProcesses()
  const members = new Set<number>()
  for (const p of all) {
    if (p.pid === process.pid) continue
    if (p.pid === tree.pid || p.pgrp === tree.pid || isMarked(p.pid, needle)) members.add(p.pid)
  }
  // Descendants of members that cleared their environment and left the group.
  let grew = true
  while (grew) {
    grew = false
    for (const p of all) {
      if (!members.has(p.pid) && members.has(p.ppid) && p.pid !== process.pid) {
        members.add(p.pid)
        grew = true
      }
    }
  }
  return [...members].sort((a, b) => a - b)
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0)
    return true
  } catch (error) {
    // EPERM: a member exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** Whether any process of the tree is alive (never probed on Windows; elsewhere without /proc, the group). */
export function treeAlive(tree: ProcessTree): boolean {
  if (isWindows) return false
  if (hasProc) return treeMembers(tree).length > 0
  return groupAlive(tree.pid)
}

/** Whether one process is running (on Linux a zombie counts as ended). */
function running(pid: number): boolean {
  if (hasProc) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
      const state = stat.slice(stat.lastIndexOf(")") + 2)[0]
      return state !== "Z" && state !== "X"
    } catch {
      return false
    }
  }
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** Whether any of these processes is still running (zombies count as ended on Linux). */
export function anyRunning(pids: Iterable<number>): boolean {
  for (const pid of pids) if (running(pid)) return true
  return false
}

/** Sends a signal to the tree's process group and to every other process of the tree; returns those signalled. */
export function signalTree(tree: ProcessTree, signal: NodeJS.Signals): number[] {
  if (isWindows) {
    childProcess().spawn("taskkill", ["/pid", String(tree.pid), "/T", "/F"], { stdio: "ignore", windowsHide: true })
    return []
  }
  // Looked up before the group is signalled: a descendant that cleared its mark is only found through
  // its parent, and once the parent dies it is reparented out of reach.
  const members = treeMembers(tree)
  try {
    process.kill(-tree.pid, signal)
  } catch {
    // The group is already gone.
  }
  for (const pid of members) {
    try {
      process.kill(pid, signal)
    } catch {
      // Ended meanwhile, or not ours.
    }
  }
  return members
}

const pause = (ms: number) => new Promise((done) => setTimeout(done, ms))

/**
 * SIGKILLs the tree and looks again until no process of it is left (a process may fork between the look
 * and the kill; its child carries the mark and is found in the next round). A process once found is
 * watched until it is gone, even when it stops looking like a member (it cleared its environment and
 * its parent died first); `known` adds processes found earlier (by a SIGTERM round). Resolves with whether all are gone; gives up after `rounds` looks, 20 ms apart.
 */
export async function killTree(tree: ProcessTree, known: Iterable<number> = [], rounds = 100): Promise<boolean> {
  const seen = new Set<number>(known)
  const left = () => treeAlive(tree) || [...seen].some(running)
  for (let round = 0; round < rounds; round++) {
    for (const pid of signalTree(tree, "SIGKILL")) seen.add(pid)
    for (const pid of seen) {
      try {
        process.kill(pid, "SIGKILL")
      } catch {
        seen.delete(pid)
      }
    }
    if (!left()) return true
    await pause(20)
  }
  return !left()
}

/** Waits up to `ms` for the tree to end on its own; resolves with whether it did. */
export async function waitTreeGone(tree: ProcessTree, ms: number): Promise<boolean> {
  const end = Date.now() + ms
  while (treeAlive(tree)) {
    if (Date.now() >= end) return false
    await pause(50)
  }
  return true
}
