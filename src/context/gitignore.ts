import { dirname, join, relative } from "node:path"
import type ignoreFactory from "ignore"
import type { Ignore } from "ignore"
import { lazyModule } from "../lazy-module.js"
import type { DirCache } from "./dir-cache.js"
import { readTextFile } from "./instructions/read.js"
import type { LinkGuard } from "./link-guard.js"
import { foldersBetween, isInside, toPosix } from "./paths.js"

/** The `ignore` package (CommonJS), required when the first rules are read. */
const ignore = lazyModule<typeof ignoreFactory>("ignore")

interface Layer {
  dir: string
  rules: Ignore
}

/** The .gitignore rules of one workspace, loaded lazily per folder (plus `.git/info/exclude` at the root). */
export class GitignoreRules {
  private readonly layers = new Map<string, Promise<Layer | undefined>>()

  constructor(
    private readonly root: string,
    private readonly dirs: DirCache,
    private readonly display: (abs: string) => string,
    /** When given, a .gitignore linked out of the workspace is not read (as git itself does not follow it). */
    private readonly links?: LinkGuard,
  ) {}

  private layer(dir: string): Promise<Layer | undefined> {
    let layer = this.layers.get(dir)
    if (!layer) {
      layer = this.load(dir)
      this.layers.set(dir, layer)
    }
    return layer
  }

  private async load(dir: string): Promise<Layer | undefined> {
    const files = [join(dir, ".gitignore")]
    if (dir === this.root) files.unshift(join(dir, ".git", "info", "exclude"))
    const rules = ignore()()
    let any = false
    for (const file of files) {
      if (file.endsWith(".gitignore") && (await this.dirs.kind(dir, ".gitignore")) !== "file") continue
      const link = this.links ? await this.links.check(file, "project") : { ok: true as const, real: file }
      if (!link.ok) continue
      const read = await readTextFile(link.real)
      if (!read.ok) continue
      const shown = this.display(file)
      read.text.split("\n").forEach((line, i) => {
        if (line.trim() === "" || line.startsWith("#")) return
        rules.add({ pattern: line, mark: `${shown}:${i + 1}` })
        any = true
      })
    }
    return any ? { dir, rules } : undefined
  }

  /** Why the entry itself is ignored (its folders are assumed not ignored), or undefined. */
  async entryReason(abs: string, isDir: boolean): Promise<string | undefined> {
    if (!isInside(this.root, abs) || abs === this.root) return undefined
    let reason: string | undefined
    for (const dir of foldersBetween(this.root, dirname(abs))) {
      const layer = await this.layer(dir)
      if (!layer) continue
      const rel = toPosix(relative(dir, abs)) + (isDir ? "/" : "")
      const result = layer.rules.test(rel)
      if (result.ignored) reason = `ignored by ${result.rule?.mark ?? ".gitignore"} (\`${result.rule?.pattern ?? ""}\`)`
      else if (result.unignored) reason = undefined
    }
    return reason
  }

  /** Why a path is ignored, checking each of its folders below the root first, or undefined. */
  async reason(abs: string, isDir: boolean): Promise<string | undefined> {
    if (!isInside(this.root, abs) || abs === this.root) return undefined
    const folders = foldersBetween(this.root, dirname(abs)).slice(1)
    for (const folder of folders) {
      const why = await this.entryReason(folder, true)
      if (why) return why
    }
    return this.entryReason(abs, isDir)
  }
}
