import { spawn } from "node:child_process"
import { lstat } from "node:fs/promises"
import { dirname, join, resolve } from "node:path"
import { type Diagnostic, diagnostic } from "../diagnostics.js"
import { headAtLineEnd } from "./instructions/budget.js"

/** The longest git status summary kept in the context, in characters. */
export const MAX_GIT_STATUS = 10_000

/** Git facts of a working folder; undefined outside a repository. */
export interface GitFacts {
  /** Repository top level, native form. */
  root: string
  branch?: string
  /** `git status --porcelain` output, cut at a line end to MAX_GIT_STATUS characters; "" when clean. */
  status: string
}

interface Run {
  code: number | null
  stdout: string
  missing?: boolean
  overflow?: boolean
}

/** Runs git in `cwd`, keeping at most `limit` characters of its output (then stops it). */
function git(cwd: string, args: string[], limit = 1 << 20): Promise<Run> {
  return new Promise((done) => {
    const child = spawn("git", args, {
      cwd,
      env: { ...process.env, GIT_OPTIONAL_LOCKS: "0", LC_ALL: "C", GIT_TERMINAL_PROMPT: "0" },
      stdio: ["ignore", "pipe", "ignore"],
    })
    let stdout = ""
    let overflow = false
    child.stdout.setEncoding("utf8")
    child.stdout.on("data", (chunk: string) => {
      if (overflow) return
      stdout += chunk
      if (stdout.length > limit) {
        overflow = true
        child.kill()
      }
    })
    child.on("error", (error: NodeJS.ErrnoException) =>
      done({ code: null, stdout: "", missing: error.code === "ENOENT" }),
    )
    child.on("close", (code) => done({ code, stdout, overflow }))
  })
}

/** Cuts a status listing to `max` characters at a line end, saying how many lines were left out. */
export function summarizeStatus(porcelain: string, max = MAX_GIT_STATUS, more = false): string {
  const text = porcelain.replace(/\n+$/, "")
  if (text.length <= max && !more) return text
  const total = text.split("\n").length
  const notice = (n: number) => `… ${n}${more ? "+" : ""} more line${n === 1 && !more ? "" : "s"} not shown`
  const head = headAtLineEnd(text, max - notice(total).length - 1)
  const kept = head === "" ? 0 : head.split("\n").length
  return head === "" ? notice(total) : `${head}\n${notice(total - kept)}`
}

/** The nearest folder at or above `cwd` that holds a `.git` folder or file; found without running git. */
export async function findRepositoryRoot(cwd: string): Promise<string | undefined> {
  let dir = resolve(cwd)
  for (;;) {
    try {
      await lstat(join(dir, ".git"))
      return dir
    } catch {
      const parent = dirname(dir)
      if (parent === dir) return undefined
      dir = parent
    }
  }
}

/** Reads the repository root, branch and status for `cwd` by running git; no repository gives undefined. */
export async function readGit(cwd: string): Promise<{ git?: GitFacts; diagnostics: Diagnostic[] }> {
  // The three questions do not depend on each other: ask them at once.
  const [top, branch, status] = await Promise.all([
    git(cwd, ["rev-parse", "--show-toplevel"]),
    git(cwd, ["branch", "--show-current"]),
    git(cwd, ["status", "--porcelain=v1", "--untracked-files=normal"], MAX_GIT_STATUS * 4),
  ])
  if (top.missing) {
    return { diagnostics: [diagnostic("info", "git-missing", "git is not installed; no repository facts")] }
  }
  if (top.code !== 0 || top.stdout.trim() === "") return { diagnostics: [] }
  const root = resolve(top.stdout.trim())
  const facts: GitFacts = { root, status: "" }
  let name = branch.code === 0 ? branch.stdout.trim() : ""
  if (name === "") {
    const head = await git(cwd, ["rev-parse", "--short", "HEAD"])
    if (head.code === 0 && head.stdout.trim() !== "") name = `detached at ${head.stdout.trim()}`
  }
  if (name !== "") facts.branch = name
  const diagnostics: Diagnostic[] = []
  if (status.code === 0 || status.overflow) {
    // A listing stopped early may end mid-line: drop the partial last line.
    const listing = status.overflow ? status.stdout.slice(0, status.stdout.lastIndexOf("\n") + 1) : status.stdout
    facts.status = summarizeStatus(listing, MAX_GIT_STATUS, status.overflow === true)
  } else {
    diagnostics.push(diagnostic("warning", "git-status-failed", "`git status` failed; the status is left out"))
  }
  return { git: facts, diagnostics }
}
