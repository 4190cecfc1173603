import type { BigIntStats } from "node:fs"
import { WeightedMap } from "../../bounded-map.js"

/** One version of a file on disk: device, inode, size and both change times, to the nanosecond. */
export function versionOf(info: BigIntStats): string {
  return `${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`
}

/** Whether two stats show the same version of a file (`versionOf` without building the strings). */
export function sameVersion(a: BigIntStats, b: BigIntStats): boolean {
  return a.ino === b.ino && a.dev === b.dev && a.size === b.size && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs
}

/**
 * True when a read is known to have happened at a later file-system tick than the file's last change, so any
 * later change gives a new version. The proof is the file system's own clock: the access time the read left
 * (or an earlier, later-than-the-change one), strictly after both change times. A file system that does not
 * keep access times, or a change in the same tick as the read, proves nothing and the text is not kept.
 */
export function settled(before: BigIntStats, after: BigIntStats): boolean {
  return sameVersion(before, after) && after.atimeNs > after.mtimeNs && after.atimeNs > after.ctimeNs
}

/**
 * Texts read earlier in this process, each valid while its file keeps the same version. Bounded: at most
 * `maxBytes` in all and no single text over `maxEntryBytes`; the oldest go first.
 */
export class ReadCache<T> {
  readonly #kept: WeightedMap<string, { version: string; value: T }>

  constructor(maxBytes = 8 * 1024 * 1024, maxEntryBytes = 256 * 1024) {
    this.#kept = new WeightedMap(maxBytes, maxEntryBytes)
  }

  /** The value kept for `key` when the file still has `version`; a stale entry is dropped. */
  get(key: string, version: string): T | undefined {
    const kept = this.#kept.get(key)
    if (!kept) return undefined
    if (kept.version === version) return kept.value
    this.#kept.delete(key)
    return undefined
  }

  /** Keeps `value` (about `bytes` long) for `key` at `version`, unless it is too large to keep. */
  set(key: string, version: string, value: T, bytes: number): void {
    this.#kept.set(key, { version, value }, bytes)
  }
}
