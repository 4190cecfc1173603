import { type BigIntStats, type Dirent, readdirSync, statSync } from "node:fs"
import { stat } from "node:fs/promises"
import { basename, dirname, join, relative, sep } from "node:path"
import { WeightedMap } from "../bounded-map.js"
import { sameVersion, settled } from "./instructions/read-cache.js"
import { compareNames, isInside } from "./paths.js"

/** One directory entry; symbolic links are reported as such and resolved on demand. */
export interface DirEntry {
  name: string
  kind: "file" | "dir" | "symlink" | "other"
}

/** A directory's entries in name order, and the same entries by name (indexed on the first lookup). */
interface Listing {
  /** Frozen: a listing kept across gathers is shared by all of them. */
  entries: readonly DirEntry[]
  byName?: Map<string, DirEntry>
}

/** The entry `name` of a listing; the index by name is built once, when a folder is first asked for a name. */
function named(listing: Listing | undefined, name: string): DirEntry | undefined {
  if (!listing) return undefined
  listing.byName ??= new Map(listing.entries.map((e) => [e.name, e]))
  return listing.byName.get(name)
}

/** A listing kept from an earlier gather, valid while its folder keeps the version `info` shows. */
interface KeptListing {
  info: BigIntStats
  listing: Listing
}

/**
 * Listings read by earlier gathers in this process, by folder. A folder's modification and change times move
 * when an entry is added, removed or renamed, so a folder with the same version still has the same entries.
 * Kept only when the folder's access time proves the read came after its last change (as for file texts,
 * `settled`). A folder is kept from its second read on: a process that gathers once (the CLI) pays no `stat`
 * for it. Bounded by the number of entries kept; the oldest folders go first.
 */
class KeptListings {
  readonly #kept: WeightedMap<string, KeptListing>
  /** Folders read once and not kept (yet). */
  readonly #readOnce = new Set<string>()

  constructor(private readonly maxEntries = 200_000) {
    this.#kept = new WeightedMap(maxEntries)
  }

  /** The listing kept for `dir` if the folder is unchanged since; one synchronous `stat` (a few µs). */
  get(dir: string): Listing | undefined {
    const kept = this.#kept.get(dir)
    if (!kept) return undefined
    const info = folderStats(dir)
    if (info?.isDirectory() && sameVersion(info, kept.info)) return kept.listing
    this.#kept.delete(dir)
    return undefined
  }

  /** Whether a read of `dir` should be checked for keeping: true from the folder's second read on. */
  worthKeeping(dir: string): boolean {
    if (this.#readOnce.has(dir)) return true
    if (this.#readOnce.size >= this.maxEntries) this.#readOnce.clear()
    this.#readOnce.add(dir)
    return false
  }

  /** Keeps `listing` of `dir`, read after `before` was taken, if `after` proves nothing changed meanwhile. */
  set(dir: string, listing: Listing, before: BigIntStats | undefined, after: BigIntStats | undefined): void {
    if (!before || !after?.isDirectory() || !settled(before, after)) this.#kept.delete(dir)
    else this.#kept.set(dir, { info: after, listing: { entries: listing.entries } }, listing.entries.length)
  }
}

const keptListings = new KeptListings()

/**
 * The stats of a folder, or undefined. Synchronous: a `stat` of a folder the walk just met costs a few
 * microseconds, a fifth of what the same call costs through the thread pool and a promise.
 */
function folderStats(dir: string): BigIntStats | undefined {
  try {
    return statSync(dir, { bigint: true, throwIfNoEntry: false })
  } catch {
    return undefined
  }
}

/**
 * Reads and sorts the entries of `dir`; keeps the listing for later gathers when the folder is settled.
 * Synchronous: listing a folder costs a few microseconds, the same call through the thread pool and a
 * promise costs five to ten times that on the main thread (a walk gives the event loop its turns, see
 * `walkFolders`).
 */
function readListing(dir: string): Listing | undefined {
  const keep = keptListings.worthKeeping(dir)
  const before = keep ? folderStats(dir) : undefined
  let found: Dirent[]
  try {
    found = readdirSync(dir, { withFileTypes: true })
  } catch {
    return undefined
  }
  const entries = found
    .map(
      (e): DirEntry => ({
        name: e.name,
        kind: e.isFile() ? "file" : e.isDirectory() ? "dir" : e.isSymbolicLink() ? "symlink" : "other",
      }),
    )
    .sort((a, b) => compareNames(a.name, b.name))
  const listing: Listing = { entries: Object.freeze(entries) }
  if (keep) keptListings.set(dir, listing, before, folderStats(dir))
  return listing
}

/**
 * The sorted entries of `dir` now, or undefined when it is not a readable directory: the listing kept from an
 * earlier read if the folder is unchanged since, else a fresh one (kept from the folder's second read on).
 */
export function listFolder(dir: string): readonly DirEntry[] | undefined {
  return (keptListings.get(dir) ?? readListing(dir))?.entries
}

/**
 * Directory listings for one gather, each read once and sorted by name so order never depends on the disk.
 * A folder unchanged since an earlier gather in this process is not read again (see `KeptListings`), and a
 * folder that a listing already read in this gather shows to be absent is not asked for at all. Listings are
 * read synchronously (see `readListing`); `absent`, `linkFree` and the `…Now` methods answer at once (a walk
 * over thousands of folders needs that), and `list`, `entry` and `kind` are promises for the readers.
 */
export class DirCache {
  /** Listings read in this gather, by folder; undefined: not a readable directory (or shown absent). */
  private readonly listings = new Map<string, Listing | undefined>()

  /** The sorted entries of `dir` with an index by name, read once. */
  private listing(dir: string): Listing | undefined {
    if (this.listings.has(dir)) return this.listings.get(dir)
    // A folder kept and unchanged since exists: no need to ask the listings above it.
    const listing = keptListings.get(dir) ?? (this.absent(dir) ? undefined : readListing(dir))
    this.listings.set(dir, listing)
    return listing
  }

  /**
   * Whether a listing read in this gather shows that `dir` (a folder or a file) does not exist: the nearest
   * folder above it that was listed has no entry on the way to it, or a file on the way. A folder that could
   * not be read proves nothing (its entries may still be reachable), and no folder is read for this question.
   */
  absent(dir: string): boolean {
    let below = dir
    for (let above = dirname(dir); above !== below; below = above, above = dirname(above)) {
      if (!this.listings.has(above)) continue
      const listing = this.listings.get(above)
      if (!listing) return false
      const entry = named(listing, basename(below))
      // On the way to `dir` a folder is needed: a file there means nothing lies below it.
      return entry === undefined || (below !== dir && (entry.kind === "file" || entry.kind === "other"))
    }
    return false
  }

  /**
   * Whether every step from `base` down to `path` is a plain folder (a file for the last step) in the listings,
   * so no symbolic link lies on the way and, `base` being a real path, `path` is its own real path.
   */
  linkFree(base: string, path: string): boolean {
    if (!isInside(base, path)) return false
    const steps = relative(base, path).split(sep)
    let dir = base
    for (const [i, name] of steps.entries()) {
      const entry = named(this.listing(dir), name)
      if (entry?.kind !== "dir" && (entry?.kind !== "file" || i < steps.length - 1)) return false
      dir = join(dir, name)
    }
    return true
  }

  /** Lists `dir` ahead of the folders below it, whose absence it then answers. */
  prefetch(dir: string): void {
    this.listing(dir)
  }

  /** The sorted entries of `dir`, or undefined when it is not a readable directory. */
  listNow(dir: string): readonly DirEntry[] | undefined {
    return this.listing(dir)?.entries
  }

  /** `listNow` as a promise. */
  async list(dir: string): Promise<readonly DirEntry[] | undefined> {
    return this.listNow(dir)
  }

  /** The entry `name` in `dir`, if present (looked up by name, not by scanning the listing). */
  entryNow(dir: string, name: string): DirEntry | undefined {
    return named(this.listing(dir), name)
  }

  /** `entryNow` as a promise. */
  async entry(dir: string, name: string): Promise<DirEntry | undefined> {
    return this.entryNow(dir, name)
  }

  /** The kind of `name` in `dir` with symbolic links followed; undefined when absent or dangling. */
  async kind(dir: string, name: string): Promise<"file" | "dir" | "other" | "broken" | undefined> {
    const e = this.entryNow(dir, name)
    if (!e) return undefined
    if (e.kind !== "symlink") return e.kind
    try {
      const info = await stat(join(dir, name))
      return info.isFile() ? "file" : info.isDirectory() ? "dir" : "other"
    } catch {
      return "broken"
    }
  }
}
