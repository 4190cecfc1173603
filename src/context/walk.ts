import type { DirCache } from "./dir-cache.js"
import type { GitignoreRules } from "./gitignore.js"
import { entryPath } from "./paths.js"

/** Folders never walked: dependency trees and version-control data. */
export const NEVER_WALKED: ReadonlySet<string> = new Set(["node_modules", ".git", ".hg", ".svn"])

/** The default cap on folders walked below cwd. */
export const DEFAULT_WALK_LIMIT = 20_000

/** Folders below a start folder, and whether the cap stopped the walk. */
export interface WalkResult {
  folders: string[]
  limited: boolean
}

/** Folders listed between two turns of the event loop: a few milliseconds of synchronous reads at most. */
const LISTINGS_PER_TURN = 64

/**
 * Lists the folders below `start` (not `start` itself), skipping hidden folders, dependency trees, gitignored
 * folders and symbolic links to folders, up to `limit` folders. Reads one depth at a time; an ignored folder
 * is never read. The result is in depth-first name order, and when the limit is hit the shallowest folders
 * are the ones kept. Listings are read synchronously; a walk of thousands of folders gives the host's event
 * loop a turn every LISTINGS_PER_TURN folders (counted, not timed, so nothing here reads a clock).
 */
export async function walkFolders(
  start: string,
  dirs: DirCache,
  gitignore: GitignoreRules,
  limit = DEFAULT_WALK_LIMIT,
): Promise<WalkResult> {
  let count = 0
  let listed = 0
  let limited = false
  // Each folder's kept subfolders, in name order (listings come sorted); the order is assembled at the end.
  const below = new Map<string, string[]>()
  let level = [start]
  while (level.length > 0 && !limited) {
    const next: string[] = []
    for (const folder of level) {
      if (++listed % LISTINGS_PER_TURN === 0) await new Promise((resolve) => setImmediate(resolve))
      const entries = dirs.listNow(folder) ?? []
      const kept = entries.filter((e) => e.kind === "dir" && !e.name.startsWith(".") && !NEVER_WALKED.has(e.name))
      let found: string[] = []
      if (kept.length > 0) {
        // Most folders have no .gitignore of their own: their rules are known without reading anything.
        const ignored = gitignore.entriesOfNow(folder) ?? (await gitignore.entriesOf(folder))
        found = kept.filter((e) => ignored(e.name, true) === undefined).map((e) => entryPath(folder, e.name))
      }
      if (count + found.length > limit) {
        found = found.slice(0, Math.max(0, limit - count))
        limited = true
      }
      count += found.length
      if (found.length > 0) below.set(folder, found)
      next.push(...found)
      if (limited) break
    }
    level = next
  }
  const folders: string[] = []
  const visit = (folder: string): void => {
    for (const child of below.get(folder) ?? []) {
      folders.push(child)
      visit(child)
    }
  }
  visit(start)
  return { folders, limited }
}
