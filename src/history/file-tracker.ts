import { createHash } from "node:crypto"
import { readFile, stat } from "node:fs/promises"
import { isAbsolute, join } from "node:path"
import { type Diagnostic, diagnostic } from "../diagnostics.js"
import { lazyModule, lazyValue } from "../lazy-module.js"
import { changedFilesWarning, TAG } from "../notices.js"
import { wrapTag } from "../tag-wrap.js"

/** What the agent last saw of a file. */
export interface SeenFile {
  /** Path as the agent named it (relative to the root, POSIX form). */
  path: string
  /** sha256 of the content, hex; "" when the file did not exist. */
  hash: string
  /** Modification time in ms, 0 when the file did not exist. */
  mtime: number
  /** Size in bytes, 0 when the file did not exist (absent in states saved before it was recorded). */
  size?: number
  /** How the agent last touched it. */
  via: "read" | "write"
  /** When (ms, supplied by the caller). */
  at: number
}

/** zod, loaded on first use: importing this module builds no schema. */
const zod = lazyModule<typeof import("zod")>("zod")
const seenFileSchema = lazyValue(() => {
  const { z } = zod()
  return z.object({
    path: z.string().min(1),
    hash: z.string(),
    mtime: z.number(),
    size: z.number().optional(),
    via: z.enum(["read", "write"]),
    at: z.number(),
  })
})

/**
 * Reads the persisted seen files (`files.json`): entries that are not a seen file are skipped, and a
 * document that is not a list is dropped, each with a warning naming the file. A file left out is simply
 * no longer watched for outside changes until the agent reads or writes it again.
 */
export function parseSeenFiles(data: unknown, path: string): { files: SeenFile[]; diagnostics: Diagnostic[] } {
  if (!Array.isArray(data))
    return {
      files: [],
      diagnostics: [
        diagnostic("warning", "seen-files-invalid", "not a list of seen files; ignored (files are tracked afresh)", {
          path,
        }),
      ],
    }
  const files: SeenFile[] = []
  const diagnostics: Diagnostic[] = []
  data.forEach((entry, i) => {
    const parsed = seenFileSchema().safeParse(entry)
    if (parsed.success) files.push(parsed.data as SeenFile)
    else
      diagnostics.push(
        diagnostic("warning", "seen-files-invalid", `entry ${i + 1} is not a seen file; skipped`, { path }),
      )
  })
  return { files, diagnostics }
}

/** A file's mtime and size; zeros when it does not exist. */
async function stamp(file: string): Promise<{ mtime: number; size: number }> {
  try {
    const info = await stat(file)
    return { mtime: info.mtimeMs, size: info.size }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { mtime: 0, size: 0 }
    throw error
  }
}

/** sha256 of a file's content, hex; "" when it does not exist. */
async function hashOf(file: string): Promise<string> {
  try {
    return createHash("sha256")
      .update(await readFile(file))
      .digest("hex")
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return ""
    throw error
  }
}

async function snapshot(file: string): Promise<{ hash: string; mtime: number; size: number }> {
  const [hash, when] = await Promise.all([hashOf(file), stamp(file)])
  return { hash, ...when }
}

/**
 * The files the agent read or wrote, with the content hash and mtime it saw. `changedSinceSeen()` lists
 * those modified since by someone else, so the next user message can warn the model.
 */
export class FileTracker {
  private readonly root: string
  private readonly files = new Map<string, SeenFile>()

  constructor(root: string, seen: readonly SeenFile[] = []) {
    this.root = root
    for (const f of seen) this.files.set(f.path, f)
  }

  private resolve(path: string): string {
    return isAbsolute(path) ? path : join(this.root, path)
  }

  /** Records that the agent read `path` (hashes the file as it is now). */
  async recordRead(path: string, at: number): Promise<void> {
    this.files.set(path, { path, ...(await snapshot(this.resolve(path))), via: "read", at })
  }

  /** Records that the agent wrote `path` (hashes the file as it is now). */
  async recordWrite(path: string, at: number): Promise<void> {
    this.files.set(path, { path, ...(await snapshot(this.resolve(path))), via: "write", at })
  }

  /** Forgets a file (e.g. the agent deleted it). */
  forget(path: string): void {
    this.files.delete(path)
  }

  /** The tracked files, sorted by path. */
  list(): SeenFile[] {
    return [...this.files.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  }

  /**
   * Tracked files whose content changed (or that appeared or vanished) since the agent saw them, sorted.
   * A file is read and hashed only when its mtime or size differ from what was seen, so a rewrite that
   * keeps both the size and the mtime (to the filesystem's precision) goes unnoticed: the price of not
   * reading every tracked file every turn. A file touched but unchanged keeps its seen hash and takes
   * the new mtime, so it is not hashed again.
   */
  async changedSinceSeen(): Promise<string[]> {
    const changed: string[] = []
    for (const f of this.list()) {
      const file = this.resolve(f.path)
      const now = await stamp(file)
      if (now.mtime === f.mtime && now.size === f.size) continue
      const hash = await hashOf(file)
      if (hash !== f.hash) changed.push(f.path)
      else this.files.set(f.path, { ...f, ...now })
    }
    return changed
  }

  /** After warning the model, accept the current state of these files as seen. */
  async acknowledge(paths: readonly string[], at: number): Promise<void> {
    for (const p of paths) {
      const f = this.files.get(p)
      if (f) this.files.set(p, { ...f, ...(await snapshot(this.resolve(p))), at })
    }
  }

  /** The persisted form. */
  toJSON(): SeenFile[] {
    return this.list()
  }
}

/** The warning for the next user message about files changed outside the agent; "" when none. */
export function renderChangedFiles(paths: readonly string[]): string {
  if (paths.length === 0) return ""
  return wrapTag(TAG.filesChangedExternally, changedFilesWarning(paths))
}
