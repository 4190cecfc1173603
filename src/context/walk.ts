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
 * Lists the folders below `start` (not `start` itself) in a stable depth-first order, skipping hidden folders,
 * dependency trees, gitignored folders and symbolic links to folders, up to `limit` folders.
 */
export async function walkFolders(
  start: string,
  dirs: DirCache,
  gitignore: GitignoreRules,
  limit = DEFAULT_WALK_LIMIT,
): Promise<WalkResult> {
  const out: WalkResult = { folders: [], limited: false }
  const visit = async (folder: string): Promise<void> => {
    const entries = (await dirs.list(folder)) ?? []
    const children = entries.filter((e) => e.kind === "dir" && !e.name.startsWith(".") && !NEVER_WALKED.has(e.name))
    // Check ignore rules for all children at once: the rule files they need are already loaded.
    const ignored = await Promise.all(children.map((e) => gitignore.entryReason(join(folder, e.name), true)))
    // Start reading the listings of the kept children now, so the disk works while we descend.
    children.forEach((e, i) => void (ignored[i] ? undefined : dirs.list(join(folder, e.name))))
    for (let i = 0; i < children.length; i++) {
      if (ignored[i]) continue
      if (out.folders.length >= limit) {
        out.limited = true
        return
      }
      const child = join(folder, children[i]!.name)
      out.folders.push(child)
      await visit(child)
      if (out.limited) return
    }
  }
  await visit(start)
  return out
}
