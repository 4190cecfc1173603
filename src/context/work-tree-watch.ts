/**
 * The work-tree watch, which stands in for running `git status` on every gather (and for git's own file-system
 * monitor, which promptline switches off): `git status` is kept while a watch on every folder it reads sees no
 * change (docs/decisions.md). Why: `npm run bench -- shadows` (bench/results.md) gathers the gather benchmark's
 * monorepo warm in 13.0 ms with the watch against 49.5 ms with `watch: false`. git.ts is its only user; the tests
 * beside it compare every kept answer with what `git status` prints after random changes.
 */
import { type FSWatcher, lstatSync, readdirSync, readFileSync, readlinkSync, statfsSync, watch } from "node:fs"
import { basename, join } from "node:path"
import { setBounded } from "../bounded-map.js"
import { type DirEntry, listFolder } from "./dir-cache.js"
import { entryPath } from "./paths.js"

/**
 * File systems whose every change the kernel reports to a watch (inotify): local disks and memory. A network
 * or virtual-machine share can change without the kernel seeing it, so nothing is trusted there.
 */
const LOCAL_FILE_SYSTEMS: ReadonlySet<number> = new Set([
  0xef53, // ext2, ext3, ext4
  0x58465342, // xfs
  0x9123683e, // btrfs
  0x01021994, // tmpfs
  0x2fc12fc1, // zfs
  0xf2f52010, // f2fs
  0xca451a4e, // bcachefs
])

/** The most folders one work tree may need watched; a larger tree is not watched at all. */
export const MAX_WATCHED_FOLDERS = 10_000

/** Work trees watched at once in one process; the oldest watch is closed when another is needed. */
const MAX_WATCHED_TREES = 8

/**
 * What the watches of one process share: the folders they may watch in all, and the kernel's one event queue.
 * When that queue fills up the kernel drops what comes next, and the loop is not told (libuv skips the
 * overflow notice), so a burst of events as large as half the queue, read in one go, is taken as a loss and
 * every watch plans again.
 */
export interface WatchBudget {
  /** Folders all watches may watch together. */
  total: number
  used: number
  /** Events read in one go that count as a possible loss. */
  burstLimit: number
  /** Events read since the loop last turned. */
  burst: number
  /** The watches sharing this budget, each from its first plan until it closes. */
  members: Set<WorkTreeWatch>
}

/** A number from a file of /proc, or `fallback` when it cannot be read. */
function procNumber(path: string, fallback: number): number {
  try {
    return Number.parseInt(readFileSync(path, "utf8"), 10) || fallback
  } catch {
    return fallback
  }
}

/**
 * A quarter of the user's inotify watches (the kernel's limit is per user, shared with editors and other
 * tools), never more than four work trees' worth; a burst of half the kernel's event queue is a loss.
 */
function processBudget(): WatchBudget {
  const watches = procNumber("/proc/sys/fs/inotify/max_user_watches", 8192)
  const queue = procNumber("/proc/sys/fs/inotify/max_queued_events", 16384)
  return {
    total: Math.min(4 * MAX_WATCHED_FOLDERS, Math.floor(watches / 4)),
    used: 0,
    burstLimit: Math.max(1, Math.floor(queue / 2)),
    burst: 0,
    members: new Set(),
  }
}

/**
 * The folders git does not enter, from `git ls-files -z --others --ignored --exclude-standard --directory`
 * run at the work tree's root: an ignored folder with no tracked file in it is listed with a trailing slash
 * and nothing listed inside it. (A folder git entered and found only ignored files in is listed too, but with
 * those files inside it.) Paths are relative to the root, with `/`.
 */
export function prunedFolders(ignored: string): Set<string> {
  const sorted = ignored
    .split("\0")
    .filter((e) => e !== "")
    .sort()
  const pruned = new Set<string>()
  for (const [i, entry] of sorted.entries()) {
    // In sorted order, whatever lies inside `entry` comes right after it.
    if (entry.endsWith("/") && !(sorted[i + 1]?.startsWith(entry) ?? false)) pruned.add(entry.slice(0, -1))
  }
  return pruned
}

/**
 * A watch on the folders `git status` reads in one work tree (and the parts of its git folder that move its
 * answer), so that an answer of git can be reused while nothing has changed. Each folder is watched on its
 * own (inotify reports a change to a folder's entries and to the files directly in it). Every change moves
 * `changes`; a change that may alter which folders git reads or which watches are alive (a folder made,
 * removed or moved, a `.gitignore`, the index, `info`) also makes the watch stale until it is planned again.
 *
 * A plan is trusted only once a plan made after its folders were being watched found the same folders: a
 * rule that changed between git's listing and the start of the watch is seen then. Watchers do not keep the
 * process alive.
 */
export class WorkTreeWatch {
  /** Each watched folder's watcher and the inode it was watched as. */
  readonly #watchers = new Map<string, { watcher: FSWatcher; ino: number; gone?: boolean }>()
  /** The rules besides the tree that decide which folders git reads (see `rules`). */
  #rules: string | undefined
  readonly #gitDir: string
  readonly #gitInfo: string
  #changes = 0
  #stale = true
  #trusted = false
  #refused: string | undefined
  /** The listing of ignored entries the last plan was made from. */
  #listing: string | undefined

  constructor(
    readonly root: string,
    private readonly maxFolders = MAX_WATCHED_FOLDERS,
    private readonly budget: WatchBudget = sharedBudget(),
  ) {
    this.#gitDir = join(root, ".git")
    this.#gitInfo = join(this.#gitDir, "info")
  }

  /** The inodes of the folders watched (not those whose folder is known to be gone). */
  *inodes(): Iterable<number> {
    for (const { ino, gone } of this.#watchers.values()) if (gone !== true) yield ino
  }

  /** Why this work tree is not watched, once it was found unfit (too many folders, a nested repository). */
  get refused(): string | undefined {
    return this.#refused
  }

  /** True when the watched folders need planning (again) before anything may be trusted. */
  get needsPlan(): boolean {
    return this.#refused === undefined && (this.#stale || !this.#trusted)
  }

  /**
   * The count of changes seen, when every folder git reads is being watched; undefined when not (never
   * planned, stale or refused). An answer git gave after this was read stays true while `unchanged` says so.
   */
  mark(): number | undefined {
    return this.#refused !== undefined || this.#stale || this.#watchers.size === 0 ? undefined : this.#changes
  }

  /** The count of changes seen so far, taken when git is asked for the listing a plan is made from. */
  get changes(): number {
    return this.#changes
  }

  /** Whether nothing has changed since `mark` was read, with a trusted plan. */
  unchanged(mark: number): boolean {
    return this.#refused === undefined && !this.#stale && this.#trusted && this.#changes === mark
  }

  /**
   * Watches the folders git reads, given git's listing of ignored entries (see `prunedFolders`): every folder
   * of the work tree but `.git` and the pruned ones, without following symbolic links (git does not), plus
   * the git folder's top, `info` and every folder of refs. Each folder is watched before it is listed, so a change
   * after its listing is reported. Folders no longer read are let go. A plan that finds the same folders and
   * the same listing as the plan before it makes the watch trusted (the listing was asked after that plan's
   * folders were watched, so no rule changed unseen), unless a change was seen after `since` (the count of
   * changes when the listing was asked for): any other plan counts as a change.
   */
  plan(ignored: string, since?: number, list: (dir: string) => readonly DirEntry[] | undefined = listFolder): void {
    if (this.#refused !== undefined) return
    // A member from its first plan (the watchers it holds are then ours) until it closes.
    this.budget.members.add(this)
    // A change while git listed may have changed a rule after git read it: the listing then proves nothing.
    const quiet = since === undefined || since === this.#changes
    const pruned = prunedFolders(ignored)
    const wanted = new Set<string>()
    const rootInfo = folderInfo(this.root)
    let added = 0
    let raced = false
    let refusal: string | undefined
    const enter = (dir: string): readonly DirEntry[] => {
      if (refusal !== undefined) return []
      wanted.add(dir)
      const info = folderInfo(dir)
      if (wanted.size > this.maxFolders) refusal = `more than ${this.maxFolders} folders`
      else if (info === undefined) raced = true
      // A file system mounted inside the tree can change without an event (and may not be local).
      else if (info.dev !== rootInfo?.dev) refusal = `another file system is mounted at ${dir}`
      else {
        const known = this.#watchers.get(dir)
        // The same path may now be another folder (removed and made again, or renamed into place); a new
        // folder may get the old one's inode number, so a watch told its folder went is replaced as well.
        if (known !== undefined && (known.gone === true || known.ino !== info.ino)) this.#unwatch(dir)
        if (!this.#watchers.has(dir)) {
          const outcome =
            this.budget.used < this.budget.total ? this.#listen(dir, info.ino) : "the process's watch budget is used up"
          if (outcome === "gone") raced = true
          else if (outcome !== "watching") refusal = outcome
          else added++
        }
      }
      if (refusal !== undefined) return []
      const entries = list(dir)
      // Gone since its folder was listed: the folder above reported it.
      if (entries === undefined) raced = true
      return entries ?? []
    }
    const walk = (dir: string, rel: string): void => {
      for (const e of enter(dir)) {
        if (e.name === ".git") {
          if (rel !== "") refusal = "a repository inside the work tree"
          continue
        }
        const below = rel === "" ? e.name : `${rel}/${e.name}`
        if (e.kind !== "dir" || pruned.has(below)) continue
        // A name that is not UTF-8 comes back from Node with U+FFFD in it: its path cannot be watched.
        if (e.name.includes("\uFFFD")) refusal = "a folder name that is not UTF-8"
        else walk(entryPath(dir, e.name), below)
      }
    }
    // In the git folder every part watched must be a plain folder or file: a link would lead elsewhere.
    const gitPart = (dir: string): readonly DirEntry[] => {
      const entries = enter(dir)
      if (entries.some((e) => e.kind === "symlink")) refusal = `a symbolic link in ${dir}`
      return entries
    }
    const refs = (dir: string): void => {
      for (const e of gitPart(dir)) if (e.kind === "dir") refs(entryPath(dir, e.name))
    }
    walk(this.root, "")
    const gitTop = gitPart(this.#gitDir)
    const has = (name: string) => gitTop.find((e) => e.name === name)
    // Refs kept in a reftable are not files a folder watch can follow.
    if (has("reftable")) refusal ??= "refs kept in a reftable"
    if (has("info")?.kind === "dir") gitPart(this.#gitInfo)
    // Every ref, not only branches: a branch may name another ref, and replace refs change what status sees.
    if (has("refs")?.kind === "dir") refs(join(this.#gitDir, "refs"))
    if (refusal !== undefined) {
      this.refuse(refusal)
      return
    }
    let removed = 0
    for (const dir of [...this.#watchers.keys()]) {
      if (wanted.has(dir)) continue
      this.#unwatch(dir)
      removed++
    }
    const same = added === 0 && removed === 0 && ignored === this.#listing && !raced && quiet
    this.#listing = ignored
    this.#stale = raced
    this.#trusted = same
    if (!same) this.#changes++
  }

  /** Stops watching one folder. */
  #unwatch(dir: string): void {
    const known = this.#watchers.get(dir)
    if (known === undefined) return
    known.watcher.close()
    this.#watchers.delete(dir)
    this.budget.used--
  }

  /** Starts watching `dir` (inode `ino`): "watching", "gone" (it no longer exists), or why it cannot be watched. */
  #listen(dir: string, ino: number): "watching" | "gone" | string {
    try {
      const watcher = watch(dir, { persistent: false }, (event, name) => this.#changed(dir, event, name))
      watcher.on("error", () => this.#lost())
      this.#watchers.set(dir, { watcher, ino })
      this.budget.used++
      return "watching"
    } catch (cause) {
      const code = (cause as NodeJS.ErrnoException).code
      // Otherwise most often the user's inotify watch limit (ENOSPC) or open-file limit.
      return code === "ENOENT" || code === "ENOTDIR" ? "gone" : `cannot watch ${dir} (${code ?? "error"})`
    }
  }

  /** Counts an event against the shared queue: a burst as large as the limit makes every watch plan again. */
  #counted(): void {
    const budget = this.budget
    budget.burst++
    // Reset once the loop turns: a burst read in one go is delivered before the loop's check phase.
    if (budget.burst === 1) setImmediate(() => (budget.burst = 0))
    if (budget.burst === budget.burstLimit) for (const watch of budget.members) watch.#lost()
  }

  /** Stops watching for good: nothing about this work tree is trusted in this process any more. */
  refuse(reason: string): void {
    this.#refused = reason
    this.close()
  }

  /** Closes every watcher. */
  close(): void {
    for (const { watcher } of this.#watchers.values()) watcher.close()
    this.budget.used -= this.#watchers.size
    this.budget.members.delete(this)
    this.#watchers.clear()
    this.#stale = true
    this.#changes++
  }

  /** A watcher failed (its folder went away, or the kernel's event queue overflowed): plan again. */
  #lost(): void {
    this.#changes++
    this.#stale = true
  }

  #changed(dir: string, event: string, name: string | null): void {
    this.#changes++
    this.#counted()
    if (name === null) {
      this.#lost()
      return
    }
    // The watched folder itself removed or moved (reported under its own name): its watch is gone. Noted
    // even when stale already: a gone watch is replaced by the next plan and is no longer one of ours.
    if (event === "rename" && name === basename(dir)) {
      const known = this.#watchers.get(dir)
      if (known !== undefined) known.gone = true
      this.#stale = true
      return
    }
    if (this.#stale) return
    if (dir === this.#gitDir) {
      // The index names the tracked files (git enters an ignored folder that holds one); info holds exclude.
      if (name === "index" || name === "info" || name === "refs") this.#stale = true
      return
    }
    const path = entryPath(dir, name)
    // A name that is not UTF-8 arrives with U+FFFD: the path it gives cannot be looked at.
    const unknown = name.includes("\uFFFD")
    const ignoreFile = name.toLowerCase() === ".gitignore"
    if (unknown || ignoreFile || dir === this.#gitInfo || this.#watchers.has(path)) {
      this.#stale = true
      return
    }
    // A new folder (or ref folder) must be watched, or pruned if git ignores it: plan again.
    if (event === "rename" && isFolderOrUnknown(path)) this.#stale = true
  }

  /**
   * Tells the watch the rules from outside the tree that decide which folders git reads (its config and
   * ignore files, see git.ts `statusKey`): when they differ from the last ones, the watch plans again.
   */
  rules(rules: string): void {
    if (rules === this.#rules) return
    if (this.#rules !== undefined) this.#lost()
    this.#rules = rules
  }
}

/** A folder's device and inode (without following a link), or undefined when it is not a folder now. */
function folderInfo(dir: string): { dev: number; ino: number } | undefined {
  try {
    const info = lstatSync(dir, { throwIfNoEntry: false })
    return info?.isDirectory() ? { dev: info.dev, ino: info.ino } : undefined
  } catch {
    return undefined
  }
}

/** Whether `path` is a folder, or cannot be told (an event handler must not throw into the host's loop). */
function isFolderOrUnknown(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false
  } catch {
    return true
  }
}

let budget: WatchBudget | undefined

/** The budget of this process, read on first use. */
function sharedBudget(): WatchBudget {
  budget ??= processBudget()
  return budget
}

/**
 * How often each work tree was asked for before its watch starts (on the third sight: a command that gathers
 * once, or twice as the CLI does when MCP servers are trusted on the spot, pays nothing for a watch).
 */
const sightings = new Map<string, number>()
const SIGHTS_BEFORE_WATCH = 2
const watches = new Map<string, WorkTreeWatch>()

/**
 * The watch on the work tree at `root` (the folder holding a `.git` folder), from the third time it is asked
 * for on; undefined before, off Linux, and on file systems whose changes the kernel may not see (see
 * LOCAL_FILE_SYSTEMS).
 */
export function workTreeWatch(root: string): WorkTreeWatch | undefined {
  const known = watches.get(root)
  if (known) return known
  if (process.platform !== "linux") return undefined
  const seen = sightings.get(root) ?? 0
  if (seen < SIGHTS_BEFORE_WATCH) {
    setBounded(sightings, root, seen + 1, 1024)
    return undefined
  }
  let local: boolean
  try {
    local = LOCAL_FILE_SYSTEMS.has(statfsSync(root).type)
  } catch {
    local = false
  }
  const created = new WorkTreeWatch(root)
  if (!local) created.refuse("not a local file system")
  if (!watches.has(root) && watches.size >= MAX_WATCHED_TREES) {
    const [oldestRoot, oldest] = watches.entries().next().value as [string, WorkTreeWatch]
    // For good: a plan still running for it must not watch anything again.
    oldest.refuse("closed to make room for another work tree")
    watches.delete(oldestRoot)
  }
  watches.set(root, created)
  return created
}

/**
 * Whether this process holds inotify watches that are not these (another `fs.watch`, a native module). They
 * share the kernel's one queue, and libuv hides its overflow, so a burst of their events could drop one of
 * ours unseen: while they exist, no kept answer is trusted. Read from /proc (a few µs per open file).
 */
export function foreignWatches(): boolean {
  // Ours by inode (a watch whose folder is gone is no longer in the kernel's list; a folder the host watches
  // too shares our watch and its events).
  const ours = new Set<number>()
  for (const watch of budget?.members ?? []) for (const ino of watch.inodes()) ours.add(ino)
  try {
    for (const fd of readdirSync("/proc/self/fd")) {
      let target: string
      try {
        target = readlinkSync(`/proc/self/fd/${fd}`)
      } catch {
        continue
      }
      if (target !== "anon_inode:inotify") continue
      for (const line of readFileSync(`/proc/self/fdinfo/${fd}`, "utf8").split("\n")) {
        const ino = /^inotify wd:\S+ ino:([0-9a-f]+) /.exec(line)?.[1]
        if (ino !== undefined && !ours.has(Number.parseInt(ino, 16))) return true
      }
    }
  } catch {
    return true
  }
  return false
}

/**
 * Two turns of the event loop: a change made before this was called has been reported to its watch when it
 * resolves (the kernel queues the event at once; the loop reads the queue in its poll phase, which lies
 * between the two turns whatever phase this was called from).
 */
export function changesReported(): Promise<void> {
  return new Promise((done) => setImmediate(() => setImmediate(done)))
}
