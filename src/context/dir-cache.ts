import { readdir, stat } from "node:fs/promises"
import { join } from "node:path"
import { compareNames } from "./paths.js"

/** One directory entry; symbolic links are reported as such and resolved on demand. */
export interface DirEntry {
  name: string
  kind: "file" | "dir" | "symlink" | "other"
}

/** A directory's entries in name order, and the same entries by name (indexed on the first lookup). */
interface Listing {
  entries: DirEntry[]
  byName?: Map<string, DirEntry>
}

/** The entry `name` of a listing; the index by name is built once, when a folder is first asked for a name. */
function named(listing: Listing | undefined, name: string): DirEntry | undefined {
  if (!listing) return undefined
  listing.byName ??= new Map(listing.entries.map((e) => [e.name, e]))
  return listing.byName.get(name)
}

/** Directory listings for one gather, each read once and sorted by name so order never depends on the disk. */
export class DirCache {
  private readonly listings = new Map<string, Promise<Listing | undefined>>()

  /** The sorted entries of `dir` with an index by name, read once. */
  private listing(dir: string): Promise<Listing | undefined> {
    let listing = this.listings.get(dir)
    if (!listing) {
      listing = readdir(dir, { withFileTypes: true }).then(
        (found) => {
          const entries = found
            .map(
              (e): DirEntry => ({
                name: e.name,
                kind: e.isFile() ? "file" : e.isDirectory() ? "dir" : e.isSymbolicLink() ? "symlink" : "other",
              }),
            )
            .sort((a, b) => compareNames(a.name, b.name))
          return { entries }
        },
        () => undefined,
      )
      this.listings.set(dir, listing)
    }
    return listing
  }

  /** The sorted entries of `dir`, or undefined when it is not a readable directory. */
  async list(dir: string): Promise<DirEntry[] | undefined> {
    return (await this.listing(dir))?.entries
  }

  /** The entry `name` in `dir`, if present (looked up by name, not by scanning the listing). */
  async entry(dir: string, name: string): Promise<DirEntry | undefined> {
    return named(await this.listing(dir), name)
  }

  /** The kind of `name` in `dir` with symbolic links followed; undefined when absent or dangling. */
  async kind(dir: string, name: string): Promise<"file" | "dir" | "other" | "broken" | undefined> {
    const e = named(await this.listing(dir), name)
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
