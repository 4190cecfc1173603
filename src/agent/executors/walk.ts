import type { Dirent } from "node:fs"
import { readdir, readFile } from "node:fs/promises"
import path from "node:path"
import type ignoreFactory from "ignore"
import type { Ignore } from "ignore"
import { foldersBetween } from "../../context/paths.js"
import { allMatchByName, ruleSubject } from "../../ignore-rules.js"
import { lazyModule } from "../../lazy-module.js"
import { isInside } from "../workspace.js"

/** The `ignore` package (CommonJS), required when the first rules are read. */
const ignore = lazyModule<typeof ignoreFactory>("ignore")

/** Folders whose contents are skipped unless asked for. */
export const SKIPPED_FOLDERS: readonly string[] = Object.freeze([".git", "node_modules"])

/**
 * Folders of the workspace (relative to its root, POSIX form) that no listing or search ever shows: where an
 * older promptline kept the agent's sessions (now in the user's state folder), whose histories would otherwise
 * be read back to the model.
 */
export const PRIVATE_FOLDERS: readonly string[] = Object.freeze([".promptline/sessions"])

/** Whether `absolute` is a private folder of the workspace `root`, or inside one. */
export function isPrivatePath(root: string, absolute: string): boolean {
  const rel = path.relative(path.resolve(root), path.resolve(absolute)).split(path.sep).join("/")
  return PRIVATE_FOLDERS.some((p) => rel === p || rel.startsWith(`${p}/`))
}

/** What the model is told when it asks to list or search a private folder. */
export const privateRefusal = (shown: string): string =>
  `${shown} holds the agent's own session files; it is not listed or searched.`

/** The ignore-rule files honoured in every folder. */
const IGNORE_FILES = [".gitignore", ".ignore"]

/** One file or folder met during a walk. */
export interface WalkEntry {
  absolute: string
  /** Depth below the start folder: 1 for its direct children. */
  depth: number
  isDirectory: boolean
  /** A regular file (not a symlink, FIFO, socket or device). */
  isFile: boolean
  isSymlink: boolean
}

interface Layer {
  base: string
  rules: Ignore
  /** Every rule matches by name: entries are asked about by name (see ignore-rules.ts). */
  byName: boolean
}

/** Options of a walk; every listing is sorted by name so the result never depends on disk order. */
export interface WalkOptions {
  /** Ignore files from here down to the start folder apply too (normally the workspace root). */
  root: string
  start: string
  recursive: boolean
  /** Include dot-files and dot-folders. */
  hidden: boolean
  /** Folders listed but never entered (default SKIPPED_FOLDERS). */
  skip?: readonly string[]
  /** Breadth-first (shallow entries first) or depth-first in path order. */
  order: "breadth" | "depth"
  /** Stops after yielding this many entries. */
  limit?: number
  signal?: AbortSignal
}

async function loadLayer(dir: string): Promise<Layer | undefined> {
  let rules: Ignore | undefined
  let byName = true
  for (const name of IGNORE_FILES) {
    const text = await readFile(path.join(dir, name), "utf8").catch(() => undefined)
    if (text === undefined) continue
    rules = (rules ?? ignore()()).add(text)
    byName &&= allMatchByName(text)
  }
  return rules ? { base: dir, rules, byName } : undefined
}

/**
 * Whether the layered rules ignore a path whose folders are not ignored; deeper files override shallower
 * ones, `!` re-includes.
 */
function ignoredBy(layers: Layer[], absolute: string, isDirectory: boolean): boolean {
  let ignored = false
  const name = path.basename(absolute)
  for (const layer of layers) {
    const below = path.relative(layer.base, path.dirname(absolute)).split(path.sep).join("/")
    if (absolute === layer.base || !isInside(layer.base, path.dirname(absolute))) continue
    const verdict = layer.rules.test(ruleSubject(layer.byName, below, name, isDirectory))
    if (verdict.ignored) ignored = true
    else if (verdict.unignored) ignored = false
  }
  return ignored
}

/** The ignore layers of the folders from `root` down to `start` (inclusive). */
async function ancestorLayers(root: string, start: string): Promise<Layer[]> {
  const layers: Layer[] = []
  for (const dir of isInside(root, start) ? foldersBetween(root, start) : [start]) {
    const layer = await loadLayer(dir)
    if (layer) layers.push(layer)
  }
  return layers
}

interface Shared {
  options: WalkOptions
  skip: Set<string>
}

interface Listed {
  entries: WalkEntry[]
  /** Sub-folders to enter, with the ignore layers that apply inside them. */
  folders: { dir: string; depth: number; layers: Layer[] }[]
}

/** One folder's visible entries, sorted by name, and the sub-folders to enter. */
async function listFolder(shared: Shared, dir: string, depth: number, inherited: Layer[]): Promise<Listed> {
  let dirents: Dirent[]
  try {
    dirents = await readdir(dir, { withFileTypes: true })
  } catch {
    return { entries: [], folders: [] }
  }
  const layers = [...inherited]
  if (depth > 0) {
    const own = await loadLayer(dir)
    if (own) layers.push(own)
  }
  dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  const listed: Listed = { entries: [], folders: [] }
  for (const dirent of dirents) {
    if (!shared.options.hidden && dirent.name.startsWith(".")) continue
    const absolute = path.join(dir, dirent.name)
    const isDirectory = dirent.isDirectory()
    if (ignoredBy(layers, absolute, isDirectory) || isPrivatePath(shared.options.root, absolute)) continue
    listed.entries.push({
      absolute,
      depth: depth + 1,
      isDirectory,
      isFile: dirent.isFile(),
      isSymlink: dirent.isSymbolicLink(),
    })
    if (isDirectory && shared.options.recursive && !shared.skip.has(dirent.name)) {
      listed.folders.push({ dir: absolute, depth: depth + 1, layers })
    }
  }
  return listed
}

async function* depthFirst(shared: Shared, dir: string, depth: number, layers: Layer[]): AsyncGenerator<WalkEntry> {
  if (shared.options.signal?.aborted) return
  const listed = await listFolder(shared, dir, depth, layers)
  for (const entry of listed.entries) {
    yield entry
    const folder = listed.folders.find((f) => f.dir === entry.absolute)
    if (folder) yield* depthFirst(shared, folder.dir, folder.depth, folder.layers)
  }
}

async function* breadthFirst(shared: Shared, start: string, layers: Layer[]): AsyncGenerator<WalkEntry> {
  const queue: Listed["folders"] = [{ dir: start, depth: 0, layers }]
  for (let next = queue.shift(); next; next = queue.shift()) {
    if (shared.options.signal?.aborted) return
    const listed = await listFolder(shared, next.dir, next.depth, next.layers)
    yield* listed.entries
    queue.push(...listed.folders)
  }
}

/**
 * Walks a folder honouring .gitignore and .ignore files (nested ones and those between the root and
 * the start folder), skipping hidden entries unless asked, never entering skipped folders and never
 * following symlinks; private folders of the root (PRIVATE_FOLDERS) are never yielded. Yields folders and files.
 */
export async function* walk(options: WalkOptions): AsyncGenerator<WalkEntry> {
  const shared: Shared = { options, skip: new Set(options.skip ?? SKIPPED_FOLDERS) }
  const start = path.resolve(options.start)
  const root = path.resolve(options.root)
  const layers = await ancestorLayers(root, start)
  // A start folder inside an ignored one lists nothing, as git shows nothing of it: each folder on the way is
  // asked in turn, so one a deeper file takes back is not counted as ignored.
  if (isInside(root, start) && foldersBetween(root, start).some((dir) => ignoredBy(layers, dir, true))) return
  const entries = options.order === "depth" ? depthFirst(shared, start, 0, layers) : breadthFirst(shared, start, layers)
  let yielded = 0
  for await (const entry of entries) {
    yield entry
    yielded++
    if (options.limit !== undefined && yielded >= options.limit) return
  }
}
