import { createHash, randomUUID } from "node:crypto"
import { chmod, mkdir, open, readdir, rename, rm, stat } from "node:fs/promises"
import { hostname } from "node:os"
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
   * The file's permission bits. Default: an existing target's, else 0644 (less the umask). Given, they replace an
   * existing target's too, and folders made for the file get them with the search bit where a read bit is (0600
   * gives 0700): `0o600` for what only the user may read (traces of requests).
   */
  mode?: number
  /**
   * Default true: the file and its folder are flushed to disk. False keeps the write atomic (old or new
   * content, never a mix) without waiting for the disk, for records a crash may lose the newest of (traces).
   */
  durable?: boolean
}

/** The folder mode that goes with a file mode: searchable wherever readable (0600 → 0700, 0644 → 0755). */
export function folderModeOf(mode: number): number {
  return mode | ((mode & 0o444) >> 2)
}

/**
 * Writes `data` to a temporary file beside `target`, flushed to disk, and returns its path;
 * `commitFile` then replaces the target in one step. An existing target's permissions are kept unless
 * `options.mode` says otherwise.
 */
export async function stageFile(
  target: string,
  data: string | Uint8Array,
  options: WriteOptions = {},
): Promise<string> {
  const dir = dirname(target)
  if (options.createFolders)
    await mkdir(dir, { recursive: true, ...(options.mode !== undefined ? { mode: folderModeOf(options.mode) } : {}) })
  const temp = join(dir, stagedName(basename(target)))
  try {
    const handle = await open(temp, "wx", options.mode ?? 0o644)
    try {
      await handle.writeFile(data)
      if (options.durable !== false) await handle.sync()
    } finally {
      await handle.close()
    }
    // The umask narrowed the mode asked for; set as given. Otherwise an existing target's mode is kept.
    const previous = options.mode === undefined ? await stat(target).catch(() => undefined) : undefined
    if (options.mode !== undefined) await chmod(temp, options.mode)
    else if (previous) await chmod(temp, previous.mode & 0o7777)
    return temp
  } catch (error) {
    await rm(temp, { force: true })
    throw error
  }
}

/**
 * Makes a folder only its owner may enter (0700), and any missing folder above it alike; an existing folder is
 * narrowed to 0700 too (for folders that hold what only the user may read, such as traces).
 */
export async function makePrivateFolder(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 })
  await chmod(dir, 0o700)
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
  await removeStaleTempsOf(target)
}

/** Writes a file atomically and durably: stage (temporary file, fsync), rename, fsync of the folder. */
export async function writeFileAtomic(
  target: string,
  data: string | Uint8Array,
  options: WriteOptions = {},
): Promise<void> {
  await commitFile(await stageFile(target, data, options), target, options)
}

/**
 * A temporary file's name: `.<target name>.p<pid>h<host>.<8 hex>.tmp`, where `host` is 6 hex digits of the
 * sha256 of this machine's name. The writer is in the name, so a later write can tell a temporary file whose
 * writer is gone (killed before its rename) from one another process is still writing.
 */
function stagedName(target: string): string {
  return `.${target}.p${process.pid}h${HOST}.${randomUUID().slice(0, 8)}.tmp`
}

/** This machine, as temporary file names carry it. */
const HOST = createHash("sha256").update(hostname()).digest("hex").slice(0, 6)

/** A temporary file's name: the target's name, and the writer's pid and machine when the name carries them. */
const STAGED = /^\.(.+?)\.(?:p(\d+)h([0-9a-f]{6})\.)?[0-9a-f]{8}\.tmp$/

/** Whether a process with this id runs on this machine (one of another user counts as running). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ESRCH"
  }
}

/**
 * Removes the temporary files of writes to `target` whose writer is gone: a process on this machine that no
 * longer runs (killed between writing its temporary file and the rename). Run after every write, so a crash's
 * leftovers go with the next write of the same file. Temporary files of a running writer, of another machine (a
 * shared folder) or named without their writer (by an older promptline) are left alone. Never throws.
 */
export async function removeStaleTempsOf(target: string): Promise<string[]> {
  const name = basename(target)
  const dir = dirname(target)
  const removed: string[] = []
  try {
    for (const entry of await readdir(dir)) {
      const m = STAGED.exec(entry)
      if (!m || m[1] !== name || m[2] === undefined || m[3] !== HOST) continue
      const pid = Number(m[2])
      if (pid === process.pid || running(pid)) continue
      await rm(join(dir, entry), { force: true })
      removed.push(entry)
    }
  } catch {
    // A folder that cannot be listed keeps its leftovers; the write itself succeeded.
  }
  return removed.sort()
}

/**
 * Removes temporary files that a write killed before its rename left in `dir`; returns their names.
 * Only for folders one writer owns (a session's), where no write can be under way while it loads.
 */
export async function removeStaleTemps(dir: string): Promise<string[]> {
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => STAGED.test(n)).sort()
  for (const name of names) await rm(join(dir, name), { force: true })
  return names
}
