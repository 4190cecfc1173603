import { realpathSync } from "node:fs"
import { join } from "node:path"
import type { DirCache } from "../dir-cache.js"

/** Files found under a rules folder, and the folders skipped because symbolic links loop back. */
export interface TreeListing {
  files: string[]
  loops: string[]
}

/**
 * Lists the files under `dir` whose name `accept` takes, sorted by name at each level (files of a folder
 * before its subfolders), following symbolic links to folders but never into a folder already visited.
 */
export async function filesUnder(
  dirs: DirCache,
  dir: string,
  accept: (name: string) => boolean,
  options: { recursive?: boolean; skipFolder?: (name: string, depth: number) => boolean } = {},
): Promise<TreeListing> {
  const out: TreeListing = { files: [], loops: [] }
  const seen = new Set<string>()
  const visit = async (folder: string, depth: number): Promise<void> => {
    let real: string
    try {
      real = realpathSync.native(folder)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ELOOP") out.loops.push(folder)
      return
    }
    if (seen.has(real)) {
      out.loops.push(folder)
      return
    }
    seen.add(real)
    const entries = (await dirs.list(folder)) ?? []
    const subfolders: string[] = []
    for (const entry of entries) {
      if (entry.name.startsWith(".")) continue
      const kind = entry.kind === "symlink" ? await dirs.kind(folder, entry.name) : entry.kind
      if (kind === "dir") {
        if (options.recursive && !options.skipFolder?.(entry.name, depth)) subfolders.push(entry.name)
      } else if (kind !== undefined && kind !== "other" && accept(entry.name)) out.files.push(join(folder, entry.name))
    }
    for (const name of subfolders) await visit(join(folder, name), depth + 1)
  }
  await visit(dir, 0)
  return out
}
