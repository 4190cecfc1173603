import { randomUUID } from "node:crypto"
import { chmod, mkdir, open, readdir, rename, rm, stat } from "node:fs/promises"
import { basename, dirname, join } from "node:path"

/**
 * Atomic file writes, shared by every layer that writes (the change log, sessions, the inspect report,
 * the file-editing tools): a reader sees the old content or the new, never a mix, and after a crash
 * the file is one or the other.
 */

async function syncFolder(dir: string): Promise<void> {
  const folder = await open(dir, "r")
  try {
    await folder.sync()
  } catch {
    // Some filesystems refuse fsync on folders; the rename is still atomic there.
  } finally {
    await folder.close()
  }
}

/** Options of a write: whether missing folders are created (default: a missing folder is an error). */
export interface WriteOptions {
  createFolders?: boolean
  /**
   * Default true: the file and its folder are flushed to disk. False keeps the write atomic (old or new
   * content, never a mix) without waiting for the disk, for records a crash may lose the newest of (traces).
   */
  durable?: boolean
}

/**
 * Writes `data` to a temporary file beside `target`, flushed to disk, and returns its path;
 * `commitFile` then replaces the target in one step. An existing target's permissions are kept.
 */
export async function stageFile(
  target: string,
  data: string | Uint8Array,
  options: WriteOptions = {},
): Promise<string> {
  const dir = dirname(target)
  if (options.createFolders) await mkdir(dir, { recursive: true })
  const temp = join(dir, `.${basename(target)}.${randomUUID().slice(0, 8)}.tmp`)
  try {
    const handle = await open(temp, "wx", 0o644)
    try {
      await handle.writeFile(data)
      if (options.durable !== false) await handle.sync()
    } finally {
      await handle.close()
    }
    const previous = await stat(target).catch(() => undefined)
    if (previous) await chmod(temp, previous.mode & 0o7777)
    return temp
  } catch (error) {
    await rm(temp, { force: true })
    throw error
  }
}

/** Renames a staged file onto its target and flushes the folder, so the rename survives a crash. */
export async function commitFile(temp: string, target: string, options: WriteOptions = {}): Promise<void> {
  try {
    await rename(temp, target)
  } catch (error) {
    await rm(temp, { force: true })
    throw error
  }
  if (options.durable !== false) await syncFolder(dirname(target))
}

/** Writes a file atomically and durably: stage (temporary file, fsync), rename, fsync of the folder. */
export async function writeFileAtomic(
  target: string,
  data: string | Uint8Array,
  options: WriteOptions = {},
): Promise<void> {
  await commitFile(await stageFile(target, data, options), target, options)
}

/** The name `stageFile` gives a temporary file: `.<target name>.<8 hex>.tmp`. */
const STAGED = /^\..+\.[0-9a-f]{8}\.tmp$/

/**
 * Removes temporary files that a write killed before its rename left in `dir`; returns their names.
 * Only for folders one writer owns (a session's), where no write can be under way while it loads.
 */
export async function removeStaleTemps(dir: string): Promise<string[]> {
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => STAGED.test(n)).sort()
  for (const name of names) await rm(join(dir, name), { force: true })
  return names
}
