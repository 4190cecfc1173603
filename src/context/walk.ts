import { join } from "node:path"
import type { DirCache } from "./dir-cache.js"
import type { GitignoreRules } from "./gitignore.js"

/** Folders never walked: dependency trees and version-control data. */
export const NEVER_WALKED: ReadonlySet<string> = new Set(["node_modules", ".git", ".hg", ".svn"])

/** The default cap on folders walked below cwd. */
export const DEFAULT_WALK_LIMIT = 20_000

/** Folders below a start folder, and whether the cap stopped the walk. */
export interface WalkResult {
  folders: string[]
  limited: boolean
}

/**
 * Lists the folders below `start` (not `start` itself), skipping hidden folders, dependency trees, gitignored
 * folders and symbolic links to folders, up to `limit` folders. Reads one depth at a time in parallel; an
 * ignored folder is never read. The result is in depth-first name order, and when the limit is hit the
 * shallowest folders are the ones kept.
 */
export async function walkFolders(
  start: string,
  dirs: DirCache,
  gitignore: GitignoreRules,
  limit = DEFAULT_WALK_LIMIT,
): Promise<WalkResult> {
  let count = 0
  let limited = false
  // Each folder's kept subfolders, in name order (listings come sorted); the order is assembled at the end.
  const below = new Map<string, string[]>()
  let level = [start]
  while (level.length > 0 && !limited) {
    const children = await Promise.all(
      level.map(async (folder) => {
        const entries = (await dirs.list(folder)) ?? []
        const kept = entries.filter((e) => e.kind === "dir" && !e.name.startsWith(".") && !NEVER_WALKED.has(e.name))
        if (kept.length === 0) return []
        const ignored = await gitignore.entriesOf(folder)
        return kept.filter((e) => ignored(e.name, true) === undefined).map((e) => join(folder, e.name))
      }),
    )
    const next: string[] = []
    for (const [i, folder] of level.entries()) {
      let found = children[i]!
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
