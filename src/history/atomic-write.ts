import { open, rename, unlink } from "node:fs/promises"
import { basename, dirname, join } from "node:path"

/**
 * Writes a file so that a reader sees either the old or the new content, never a mix: the data goes
 * to a temporary file in the same folder, is flushed to disk, renamed over the target, and the folder
 * is flushed so the rename itself survives a crash.
 */
export async function writeFileAtomic(path: string, data: string): Promise<void> {
  const dir = dirname(path)
  const temp = join(dir, `.${basename(path)}.${process.pid}.${process.hrtime.bigint().toString(36)}.tmp`)
  const handle = await open(temp, "w", 0o644)
  try {
    await handle.writeFile(data, "utf8")
    await handle.sync()
  } catch (error) {
    await handle.close()
    await unlink(temp).catch(() => {})
    throw error
  }
  await handle.close()
  await rename(temp, path)
  const folder = await open(dir, "r")
  try {
    await folder.sync()
  } catch {
    // Some filesystems refuse fsync on folders; the rename is still atomic there.
  } finally {
    await folder.close()
  }
}
