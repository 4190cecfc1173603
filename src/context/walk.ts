import { join, sep } from "node:path"
import type { DirCache } from "./dir-cache.js"
import type { GitignoreRules } from "./gitignore.js"
import { compareNames } from "./paths.js"

/** Folders never walked: dependency trees and version-control data. */
export const NEVER_WALKED: ReadonlySet<string> = new Set(["node_modules", ".git", ".hg", ".svn"])

/** The default cap on folders walked below cwd. */
export const DEFAULT_WALK_LIMIT = 20_000

/** Folders below a start folder, and whether the cap stopped the walk. */
export interface WalkResult {
  folders: string[]
  limited: boolean
}

function segmentOrder(pa: readonly string[], pb: readonly string[]): number {
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const c = compareNames(pa[i]!, pb[i]!)
    if (c !== 0) return c
  }
  return pa.length - pb.length
}

/**
 * Lists the folders below `start` (not `start` itself), skipping hidden folders, dependency trees, gitignored
 * folders and symbolic links to folders, up to `limit` folders. Reads one depth at a time in parallel; the
 * result is in depth-first name order, and when the limit is hit the shallowest folders are the ones kept.
 */
export async function walkFolders(
  start: string,
  dirs: DirCache,
  gitignore: GitignoreRules,
  limit = DEFAULT_WALK_LIMIT,
): Promise<WalkResult> {
  const out: WalkResult = { folders: [], limited: false }
  let level = [start]
  while (level.length > 0 && !out.limited) {
    const children = await Promise.all(
      level.map(async (folder) => {
        const entries = (await dirs.list(folder)) ?? []
        const kept = entries.filter((e) => e.kind === "dir" && !e.name.startsWith(".") && !NEVER_WALKED.has(e.name))
        const ignored = await Promise.all(kept.map((e) => gitignore.entryReason(join(folder, e.name), true)))
        return kept.filter((_, i) => !ignored[i]).map((e) => join(folder, e.name))
      }),
    )
    const next = children.flat()
    if (out.folders.length + next.length > limit) {
      next.length = Math.max(0, limit - out.folders.length)
      out.limited = true
    }
    out.folders.push(...next)
    level = next
  }
  // Each path is split once, not once per comparison.
  const keyed = out.folders.map((folder) => ({ folder, segments: folder.split(sep) }))
  keyed.sort((a, b) => segmentOrder(a.segments, b.segments))
  out.folders = keyed.map((k) => k.folder)
  return out
}
