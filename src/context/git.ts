import { lstatSync, statSync } from "node:fs"
import { devNull, homedir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { setBounded } from "../bounded-map.js"
import { type Diagnostic, diagnostic } from "../diagnostics.js"
import { lazyModule } from "../lazy-module.js"
import { killTree, markEnv, newProcessMark, type ProcessTree, signalTree } from "../process-tree.js"
import { headAtLineEnd } from "./instructions/budget.js"
import { readTextFileSync } from "./instructions/read.js"
import { versionOf } from "./instructions/read-cache.js"
import { changesReported, foreignWatches, type WorkTreeWatch, workTreeWatch } from "./work-tree-watch.js"

/** node:child_process (and the net and stream modules it loads), required with the first process started. */
const childProcess = lazyModule<typeof import("node:child_process")>("node:child_process")

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

/** How long one git command may run before it is stopped: 5 s. */
export const GIT_TIMEOUT_MS = 5_000

/**
 * Settings given to every git command so that reading a repository runs none of its programs: the file
 * system monitor and hooks named in `.git/config` would otherwise run as the user, trusted or not.
 */
const LOCKED_DOWN = ["-c", "core.fsmonitor=false", "-c", `core.hooksPath=${devNull}`]

interface Run {
  code: number | null
  stdout: string
  missing?: boolean
  overflow?: boolean
  timedOut?: boolean
}

/**
 * Runs git in `cwd` with LOCKED_DOWN settings (plus `config`), keeping at most `limit` characters of its
 * output (then stops it); a git still running after `timeoutMs` is killed and reported as timed out.
 */
function git(
  cwd: string,
  args: string[],
  options: { limit?: number; timeoutMs: number; config?: string[] },
): Promise<Run> {
  const limit = options.limit ?? 1 << 20
  return new Promise((done) => {
    const mark = newProcessMark()
    const child = childProcess().spawn("git", [...LOCKED_DOWN, ...(options.config ?? []), ...args], {
      cwd,
      env: { ...process.env, GIT_OPTIONAL_LOCKS: "0", LC_ALL: "C", GIT_TERMINAL_PROMPT: "0", ...markEnv(mark) },
      stdio: ["ignore", "pipe", "ignore"],
      // Its own process group, so a stop reaches whatever git started too.
      detached: process.platform !== "win32",
    })
    const tree: ProcessTree | undefined = child.pid === undefined ? undefined : { pid: child.pid, mark }
    let stdout = ""
    let overflow = false
    // A hung git (a blocking file, a stuck network mount) must not hang the gather: answer without it,
    // after stopping it and what it started, and without waiting on a pipe a leftover process holds.
    let gaveUp = false
    const timer = setTimeout(() => {
      gaveUp = true
      child.stdout.destroy()
      void (tree ? killTree(tree) : Promise.resolve(true)).then(() => done({ code: null, stdout: "", timedOut: true }))
    }, options.timeoutMs)
    child.stdout.setEncoding("utf8")
    child.stdout.on("data", (chunk: string) => {
      if (overflow) return
      stdout += chunk
      if (stdout.length > limit) {
        overflow = true
        if (tree) signalTree(tree, "SIGTERM")
      }
    })
    child.on("error", (error: NodeJS.ErrnoException) => {
      clearTimeout(timer)
      done({ code: null, stdout: "", missing: error.code === "ENOENT" })
    })
    child.on("close", (code) => {
      clearTimeout(timer)
      if (!gaveUp) done({ code, stdout, overflow })
    })
  })
}

/**
 * Settings that switch off the content filters the repository itself defines (`filter.<driver>.*` in its
 * own config, which `git status` runs on files whose timestamps changed), from the output of
 * `git config --null --show-scope --name-only`. Filters from the user's global or system config are kept.
 * Undefined when a driver name cannot be given safely on the command line.
 */
function filterOverrides(listing: string): string[] | undefined {
  const items = listing.split("\0")
  const drivers = new Set<string>()
  for (let i = 0; i + 1 < items.length; i += 2) {
    const scope = items[i]!
    if (scope === "global" || scope === "system") continue
    const match = /^filter\.(.*)\.[^.]*$/s.exec(items[i + 1]!)
    if (match) drivers.add(match[1]!)
  }
  const out: string[] = []
  for (const driver of [...drivers].sort()) {
    // `-c` splits at the first `=`: a driver named with one could not be switched off.
    if (driver.includes("=")) return undefined
    for (const key of ["clean=", "smudge=", "process=", "required=false"]) out.push("-c", `filter.${driver}.${key}`)
  }
  return out
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

/** The nearest `.git` folder or file at or above `cwd`, and the folder holding it; found without running git. */
function gitEntryAbove(cwd: string): { root: string; isFolder: boolean } | undefined {
  let dir = resolve(cwd)
  for (;;) {
    const info = lstatSync(join(dir, ".git"), { throwIfNoEntry: false })
    if (info) return { root: dir, isFolder: info.isDirectory() }
    const parent = dirname(dir)
    if (parent === dir) return undefined
    dir = parent
  }
}

/** The nearest folder at or above `cwd` that holds a `.git` folder or file; found without running git. */
export async function findRepositoryRoot(cwd: string): Promise<string | undefined> {
  return gitEntryAbove(cwd)?.root
}

/** The branch named by `git rev-parse --symbolic-full-name HEAD`, or undefined for anything but a branch. */
function branchOf(symbolic: string | undefined): string | undefined {
  const prefix = "refs/heads/"
  return symbolic?.startsWith(prefix) && symbolic.length > prefix.length ? symbolic.slice(prefix.length) : undefined
}

/** What rev-parse and the filter listing answered for a repository, kept for the next gather. */
interface RepositoryAnswers {
  head: Run
  filters: Run
}

/**
 * Answers of earlier gathers, by the facts they follow from: the working folder, the git environment and
 * the texts of the repository's HEAD and its own config files. A branch switch rewrites HEAD, a new filter
 * or `core.worktree` rewrites the config, so equal texts give equal answers; status always runs.
 */
const answersBefore = new Map<string, RepositoryAnswers>()
const MAX_ANSWERS = 64

/** Git's own files read to key `answersBefore` are this small; anything larger is not keyed. */
const MAX_KEY_FILE = 64 * 1024

/**
 * A small regular file's text, or undefined when it is not one or cannot be read. The text reader checks the
 * file before it opens it, and opens without blocking, so a named pipe in its place (which git itself would
 * hang on) is not waited on.
 */
function smallFileText(path: string): string | undefined {
  const read = readTextFileSync(path, MAX_KEY_FILE)
  return read.ok && !read.capped ? read.text : undefined
}

/** What the repository's own files tell before git is asked. */
interface RepositoryFiles {
  /** The key of `answersBefore`, when the answers follow from the files alone. */
  key?: string
  /** True when the repository's own config defines no content filter (so status needs no overrides). */
  noOwnFilters: boolean
  /** The repository's own config texts (`config` and `config.worktree`), with `key`. */
  config?: string
  /** The `GIT_*` environment as sorted `name=value` lines, with `key`. */
  env?: string[]
}

/**
 * Reads `.git/HEAD`, `.git/config` and `.git/config.worktree` synchronously (small files) for `cwd`. The
 * answers cannot be known from files alone for a `.git` file (a worktree or submodule names its git folder
 * there), a HEAD that names no branch (a detached or odd HEAD is asked every time), or a config that includes
 * other files. A config without the word "filter" defines no filter (section names are matched without case).
 */
function repositoryFiles(cwd: string, found = gitEntryAbove(cwd)): RepositoryFiles {
  if (!found?.isFolder) return { noOwnFilters: false }
  const gitDir = join(found.root, ".git")
  const head = smallFileText(join(gitDir, "HEAD"))
  const config = smallFileText(join(gitDir, "config"))
  const worktree = smallFileText(join(gitDir, "config.worktree")) ?? ""
  const gitEnv = Object.keys(process.env)
    .filter((name) => name.startsWith("GIT_"))
    .sort()
  if (config === undefined || /\binclude(?:if)?\b/i.test(config + worktree)) return { noOwnFilters: false }
  const noOwnFilters =
    !/filter/i.test(config + worktree) && !gitEnv.some((name) => name.startsWith("GIT_CONFIG") || name === "GIT_DIR")
  if (head === undefined || !/^ref: refs\/heads\/\S+\n?$/.test(head)) return { noOwnFilters }
  const env = gitEnv.map((name) => `${name}=${process.env[name]}`)
  return { key: JSON.stringify([cwd, env, head, config, worktree]), noOwnFilters, config: config + worktree, env }
}

/** What `git config --get-regexp` answers when nothing matches. */
const NO_FILTERS: Run = { code: 1, stdout: "" }

/**
 * rev-parse and the filter listing for `cwd`, each as soon as it is known: from an earlier gather when the
 * repository's files say so; the filter listing also without git when the repository's config has no filter.
 */
function askRepository(
  cwd: string,
  files: RepositoryFiles,
  timeoutMs: number,
): { head: Promise<Run>; filters: Promise<Run> } {
  const known = files.key === undefined ? undefined : answersBefore.get(files.key)
  if (known) return { head: Promise.resolve(known.head), filters: Promise.resolve(known.filters) }
  const head = git(cwd, ["rev-parse", "--show-toplevel", "--symbolic-full-name", "HEAD"], { timeoutMs })
  const filters = files.noOwnFilters
    ? Promise.resolve(NO_FILTERS)
    : git(cwd, ["config", "--null", "--show-scope", "--name-only", "--get-regexp", "^filter\\."], { timeoutMs })
  void Promise.all([head, filters]).then(([h, f]) => {
    // Kept only for a full answer naming a branch, and only if the files did not change while git ran.
    const complete = h.code === 0 && !h.overflow && (f.code === 0 || f.code === 1) && !f.overflow
    if (files.key === undefined || !complete || repositoryFiles(cwd).key !== files.key) return
    setBounded(answersBefore, files.key, { head: h, filters: f }, MAX_ANSWERS)
  })
  return { head, filters }
}

/**
 * The versions (inode, size, modification and change times) of the config, ignore and attributes files git
 * reads from outside the repository, plus those named by `core.excludesFile` and `core.attributesFile` in
 * them or in the repository's own config (`repositoryConfig`); together with the repository's files they
 * decide what `git status` prints for an unchanged tree. Undefined when a config includes other files or
 * names one of these files in a way not followed here (a relative path).
 */
function outsideFiles(repositoryConfig: string): string | undefined {
  const env = process.env
  const home = env.HOME ?? homedir()
  const xdg = env.XDG_CONFIG_HOME ? join(env.XDG_CONFIG_HOME, "git") : join(home, ".config", "git")
  const configs = [
    ...(env.GIT_CONFIG_NOSYSTEM ? [] : [env.GIT_CONFIG_SYSTEM ?? "/etc/gitconfig"]),
    ...(env.GIT_CONFIG_GLOBAL ? [env.GIT_CONFIG_GLOBAL] : [join(xdg, "config"), join(home, ".gitconfig")]),
  ]
  const named = [join(xdg, "ignore"), join(xdg, "attributes"), "/etc/gitattributes"]
  const versions = configs.map(version)
  const texts = [repositoryConfig]
  for (const [i, path] of configs.entries()) {
    const text = smallFileText(path)
    // A config that exists but cannot be read whole (too large, unreadable) may include anything.
    if (text === undefined && versions[i] !== `${path}:-`) return undefined
    texts.push(text ?? "")
  }
  for (const text of texts) {
    if (/\binclude(?:if)?\b/i.test(text)) return undefined
    for (const [, value = ""] of text.matchAll(/^\s*(?:excludesfile|attributesfile)\s*=(.*)$/gim)) {
      // A quoted value ends at its quote; a bare one at a comment.
      const quoted = /^\s*"([^"\\]*)"\s*(?:[#;].*)?$/.exec(value)
      const bare = quoted ? undefined : /^\s*([^"\\#;]*?)\s*(?:[#;].*)?$/.exec(value)
      const path = (quoted?.[1] ?? bare?.[1])?.replace(/^~(?=\/)/, home)
      if (path === undefined || !path.startsWith("/")) return undefined
      named.push(path)
    }
  }
  return [...versions, ...named.map(version)].join("\n")
}

/** A file's path and version (`versionOf`), `path:-` when absent; never throws. */
function version(path: string): string {
  try {
    const info = statSync(path, { bigint: true, throwIfNoEntry: false })
    return info ? `${path}:${versionOf(info)}` : `${path}:-`
  } catch (error) {
    // A folder where a file is named (ENOTDIR) or one git may not read either: stable while it stays so.
    return `${path}:${(error as NodeJS.ErrnoException).code ?? "error"}`
  }
}

/** A `git status` answer kept while the watch on its work tree sees no change (see WorkTreeWatch). */
interface KeptStatus {
  run: Run
  watch: WorkTreeWatch
  mark: number
}

/** Status answers by what they follow from besides the tree: the repository's files and the outside files. */
const statusBefore = new Map<string, KeptStatus>()

/** Work trees whose watch is being planned by a gather (one plan at a time per tree). */
const planning = new WeakSet<WorkTreeWatch>()

/**
 * The keys of a repository whose files give `files.key`: `status` for `statusBefore`, and `rules`, what
 * besides the tree decides which folders git reads (configs, ignore files, environment), for its watch.
 * Undefined when the answer cannot be keyed.
 */
function statusKey(files: RepositoryFiles): { status: string; rules: string } | undefined {
  const { key, config, env } = files
  if (key === undefined || config === undefined || env === undefined) return undefined
  // A work tree named in the config lies elsewhere than the folder holding `.git`, which is what is watched.
  if (/\bworktree\s*=/i.test(config)) return undefined
  // So does a git folder or index named in the environment; config given there may name any file.
  const elsewhere = /^GIT_(?:DIR|WORK_TREE|INDEX_FILE|COMMON_DIR|CONFIG|CONFIG_(?:COUNT|KEY_\w*|VALUE_\w*|PARAMETERS))=/
  if (env.some((line) => elsewhere.test(line))) return undefined
  const outside = outsideFiles(config)
  if (outside === undefined) return undefined
  return { status: `${key}\n${outside}`, rules: JSON.stringify([config, outside, env]) }
}

/**
 * Plans the watch of a work tree from git's listing of its ignored entries (see `WorkTreeWatch.plan`); a
 * listing git could not give (in time, or whole) ends the watch.
 */
async function planWatch(watch: WorkTreeWatch, timeoutMs: number): Promise<void> {
  if (planning.has(watch)) return
  planning.add(watch)
  try {
    const args = ["ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"]
    const since = watch.changes
    const listing = await git(watch.root, args, { timeoutMs, limit: 4 << 20 })
    // Changes made while git ran are read before the plan, which trusts no listing a change came during.
    await changesReported()
    if (listing.code === 0 && !listing.overflow) watch.plan(listing.stdout, since)
    else watch.refuse("git could not list the ignored entries")
  } finally {
    planning.delete(watch)
  }
}

/**
 * Reads the repository root, branch and status for `cwd` by running git; no repository gives undefined.
 * At most three processes: one for the root and branch, one listing content filters, then status. The filter
 * listing is skipped when the repository's config names no filter, so status starts with rev-parse; later
 * gathers of an unchanged repository (same HEAD and config texts) run status alone. On Linux, from the third
 * gather of a work tree on, a watch follows the folders git reads (see WorkTreeWatch); once it is trusted,
 * a gather that finds nothing changed since the last status answers with that status and starts no process.
 */
export async function readGit(
  cwd: string,
  options: { timeoutMs?: number; watch?: boolean } = {},
): Promise<{ git?: GitFacts; diagnostics: Diagnostic[] }> {
  const timeoutMs = options.timeoutMs ?? GIT_TIMEOUT_MS
  // With no `.git` at or above cwd and no repository named in the environment, git finds none either.
  const found = gitEntryAbove(cwd)
  if (!found && process.env.GIT_DIR === undefined && process.env.GIT_WORK_TREE === undefined) return { diagnostics: [] }
  // These questions do not depend on each other: ask them at once. Status waits for the filter list only.
  // One rev-parse answers both the root and the branch (it prints the root even when HEAD has no commit yet).
  const files = repositoryFiles(cwd, found)
  const asked = askRepository(cwd, files, timeoutMs)
  // A work tree watched since an earlier gather gives the status kept then, while nothing changed in it.
  // (The outside files of the key are read only once the tree is watched: a first gather reads none.)
  const watchable = options.watch !== false && files.key !== undefined && found !== undefined
  const watched = watchable ? workTreeWatch(found.root) : undefined
  const key = watched === undefined ? undefined : statusKey(files)
  const watch = key === undefined ? undefined : watched
  // Rules that changed outside the tree (a global ignore file, say) may change which folders git reads.
  if (key !== undefined) watch?.rules(key.rules)
  const before = key === undefined ? undefined : statusBefore.get(key.status)
  const kept = before?.watch === watch ? before : undefined
  if (kept !== undefined) await changesReported()
  const reused = kept?.watch.unchanged(kept.mark) && !foreignWatches() ? kept.run : undefined
  const filters = await asked.filters
  // `git config --get-regexp` exits with 1 when nothing matches.
  const config = filters.code === 0 || filters.code === 1 ? filterOverrides(filters.stdout) : undefined
  // The watch's count of changes before status starts: the answer holds while it does not move.
  const mark = reused === undefined ? watch?.mark() : undefined
  const pending =
    config === undefined || filters.missing
      ? undefined
      : reused
        ? Promise.resolve(reused)
        : // Submodules are not entered: git would run there with their own config, filters included.
          git(cwd, ["status", "--porcelain=v1", "--untracked-files=normal", "--ignore-submodules=dirty"], {
            limit: MAX_GIT_STATUS * 4,
            timeoutMs,
            config,
          })
  // Planned beside status, once status has taken its mark (a plan that changes the watch moves it).
  const planned = pending !== undefined && watch?.needsPlan ? planWatch(watch, timeoutMs) : undefined
  try {
    const facts = await answer(cwd, asked, filters, pending, timeoutMs)
    if (watch !== undefined && found !== undefined && facts.git !== undefined && facts.git.root !== found.root) {
      // Git reads another repository than the `.git` folder found (it may have found that one unfit).
      watch.refuse("git reads a repository other than the one watched")
    } else if (watch !== undefined && mark !== undefined && key !== undefined && pending !== undefined) {
      const done = await pending
      // Kept only whole, and only if the repository's own files and the outside files did not change meanwhile.
      if (done.code === 0 && !done.overflow && statusKey(repositoryFiles(cwd))?.status === key.status) {
        setBounded(statusBefore, key.status, { run: done, watch, mark }, MAX_ANSWERS)
      }
    }
    return facts
  } finally {
    await planned
  }
}

/** The git facts from rev-parse (`asked.head`), the filter listing and status (`pending`, if it runs). */
async function answer(
  cwd: string,
  asked: { head: Promise<Run> },
  filters: Run,
  pending: Promise<Run> | undefined,
  timeoutMs: number,
): Promise<{ git?: GitFacts; diagnostics: Diagnostic[] }> {
  const timedOut = (what: string) =>
    diagnostic("warning", "git-timeout", `\`git ${what}\` gave no answer within ${timeoutMs} ms; ${what} left out`)
  const head = await asked.head
  // An answer without repository facts still waits for the status started beside rev-parse (it ends at once
  // outside a work tree, and has its own timeout): nothing git started outlives the gather.
  const noFacts = async (diagnostics: Diagnostic[]) => {
    await pending
    return { diagnostics }
  }
  if (head.missing) return noFacts([diagnostic("info", "git-missing", "git is not installed; no repository facts")])
  if (head.timedOut) {
    const message = `\`git rev-parse\` gave no answer within ${timeoutMs} ms; no repository facts`
    return noFacts([diagnostic("warning", "git-timeout", message)])
  }
  const [top = "", symbolic] = head.stdout.split("\n").map((line) => line.trim())
  // Outside a work tree rev-parse prints nothing; with an unborn HEAD it prints the root and fails on HEAD.
  if (top === "") return noFacts([])
  const root = resolve(top)
  const facts: GitFacts = { root, status: "" }
  const diagnostics: Diagnostic[] = []
  // Only a detached or unborn HEAD needs one more question; it runs while status does.
  let name = head.code === 0 ? (branchOf(symbolic) ?? "") : ""
  if (head.code !== 0) {
    // HEAD names a branch without commits: git branch still knows its name.
    const branch = await git(cwd, ["branch", "--show-current"], { timeoutMs })
    if (branch.timedOut) diagnostics.push(timedOut("branch"))
    if (branch.code === 0) name = branch.stdout.trim()
  } else if (name === "") {
    const short = await git(cwd, ["rev-parse", "--short", "HEAD"], { timeoutMs })
    if (short.timedOut) diagnostics.push(timedOut("rev-parse HEAD"))
    if (short.code === 0 && short.stdout.trim() !== "") name = `detached at ${short.stdout.trim()}`
  }
  if (name !== "") facts.branch = name
  if (pending === undefined) {
    const why = filters.timedOut ? "listing its content filters timed out" : "its content filters could not be listed"
    diagnostics.push(diagnostic("warning", "git-status-skipped", `\`git status\` not run: ${why}`))
    return { git: facts, diagnostics }
  }
  const status = await pending
  if (status.timedOut) diagnostics.push(timedOut("status"))
  else if (status.code === 0 || status.overflow) {
    // A listing stopped early may end mid-line: drop the partial last line.
    const listing = status.overflow ? status.stdout.slice(0, status.stdout.lastIndexOf("\n") + 1) : status.stdout
    facts.status = summarizeStatus(listing, MAX_GIT_STATUS, status.overflow === true)
  } else {
    diagnostics.push(diagnostic("warning", "git-status-failed", "`git status` failed; the status is left out"))
  }
  return { git: facts, diagnostics }
}
