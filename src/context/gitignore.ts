import { basename, dirname, join } from "node:path"
import type ignoreFactory from "ignore"
import type { Ignore } from "ignore"
import { setBounded } from "../bounded-map.js"
import { isRule, matchesByName, ruleSubject } from "../ignore-rules.js"
import { lazyModule } from "../lazy-module.js"
import type { DirCache } from "./dir-cache.js"
import { readTextFile } from "./instructions/read.js"
import type { LinkGuard } from "./link-guard.js"
import { foldersBetween, isInside } from "./paths.js"

/** The `ignore` package (CommonJS), required when the first rules are read. */
const ignore = lazyModule<typeof ignoreFactory>("ignore")

/** The compiled rules of one folder's files, and whether every one of them matches by an entry's name alone. */
interface Compiled {
  rules: Ignore
  byName: boolean
}

/**
 * Rules compiled by earlier gathers, by the files' names and texts: an `Ignore` also remembers the paths it
 * tested, so an unchanged .gitignore answers the next gather's walk from that memory.
 */
const compiledBefore = new Map<string, Compiled>()
const MAX_COMPILED = 256

/** The rules of the files (shown name and text each), compiled once per process while their texts stay. */
function compiled(files: readonly { shown: string; text: string }[]): Compiled {
  const key = JSON.stringify(files)
  const before = compiledBefore.get(key)
  if (before) return before
  const rules = ignore()()
  let byName = true
  for (const { shown, text } of files) {
    text.split("\n").forEach((line, i) => {
      if (!isRule(line)) return
      rules.add({ pattern: line, mark: `${shown}:${i + 1}` })
      byName &&= matchesByName(line)
    })
  }
  const out = { rules, byName }
  setBounded(compiledBefore, key, out, MAX_COMPILED)
  return out
}

/** Whether a rules file holds at least one rule (a line that is neither blank nor a comment). */
function holdsRules(text: string): boolean {
  return text.split("\n").some(isRule)
}

interface Layer extends Compiled {
  dir: string
}

/**
 * A layer that applies inside one folder, with that folder's path relative to the layer's (POSIX; "" if same).
 * A layer whose rules all match by name (`byName`) is asked about the entry's name alone: the answer is the
 * same, and the `Ignore` remembers it for every folder with an entry of that name.
 */
interface Applying extends Compiled {
  prefix: string
}

/** Not known without reading a file. */
const UNKNOWN = Symbol("unknown")

/** The layers applying in folder `name` below a folder where `above` apply, plus its own layer if any. */
function extend(above: readonly Applying[], name: string, own: Layer | undefined): Applying[] {
  const out = above.map((a) => ({ ...a, prefix: a.prefix === "" ? name : `${a.prefix}/${name}` }))
  if (own) out.push({ rules: own.rules, byName: own.byName, prefix: "" })
  return out
}

/** Tests an entry by name against every applying layer, general first; the last rule that matches decides. */
function entryRules(applying: readonly Applying[]): EntryRules {
  return (name, isDir) => {
    let reason: string | undefined
    for (const { rules, byName, prefix } of applying) {
      const result = rules.test(ruleSubject(byName, prefix, name, isDir))
      if (result.ignored) reason = because(result.rule)
      else if (result.unignored) reason = undefined
    }
    return reason
  }
}

/** The reason given for an ignored path: the file and line of the rule, and the rule as written. */
function because(rule: { mark?: string; pattern: string } | undefined): string {
  return `ignored by ${rule?.mark ?? ".gitignore"} (\`${rule?.pattern ?? ""}\`)`
}

/** Why an entry of one folder is ignored (by name; the folder itself is assumed not ignored), or undefined. */
export type EntryRules = (name: string, isDir: boolean) => string | undefined

/** The .gitignore rules of one workspace, loaded lazily per folder (plus `.git/info/exclude` at the root). */
export class GitignoreRules {
  private readonly layers = new Map<string, Promise<Layer | undefined>>()
  /** The layers known so far: loaded, or shown absent by a folder's listing (no .gitignore in it). */
  private readonly layersKnown = new Map<string, Layer | undefined>()
  /** Per folder, the layers that apply to its entries, general first; built from its parent's. */
  private readonly applying = new Map<string, Promise<Applying[]>>()
  private readonly applyingKnown = new Map<string, Applying[]>()

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
      layer = this.load(dir).then((loaded) => {
        this.layersKnown.set(dir, loaded)
        return loaded
      })
      this.layers.set(dir, layer)
    }
    return layer
  }

  /** The layer of `dir` if it is known without reading a file; UNKNOWN otherwise. */
  private layerNow(dir: string): Layer | undefined | typeof UNKNOWN {
    if (this.layersKnown.has(dir)) return this.layersKnown.get(dir)
    // Below the root only `.gitignore` makes a layer; no such entry in the listing, no layer.
    if (dir === this.root || this.dirs.entryNow(dir, ".gitignore") !== undefined) return UNKNOWN
    this.layersKnown.set(dir, undefined)
    return undefined
  }

  /** The layers applying in `dir` if every one of them is known without reading a file. */
  private applyingNow(dir: string): Applying[] | undefined {
    const known = this.applyingKnown.get(dir)
    if (known) return known
    const above = dir === this.root ? [] : this.applyingNow(dirname(dir))
    if (!above) return undefined
    const own = this.layerNow(dir)
    if (own === UNKNOWN) return undefined
    const out = extend(above, basename(dir), own)
    this.applyingKnown.set(dir, out)
    return out
  }

  private async load(dir: string): Promise<Layer | undefined> {
    const files = [join(dir, ".gitignore")]
    if (dir === this.root) files.unshift(join(dir, ".git", "info", "exclude"))
    const read: { shown: string; text: string }[] = []
    for (const file of files) {
      if (file.endsWith(".gitignore") && (await this.dirs.kind(dir, ".gitignore")) !== "file") continue
      const link = this.links ? await this.links.check(file, "project") : { ok: true as const, real: file }
      if (!link.ok) continue
      const text = await readTextFile(link.real)
      if (text.ok && holdsRules(text.text)) read.push({ shown: this.display(file), text: text.text })
    }
    return read.length > 0 ? { dir, ...compiled(read) } : undefined
  }

  /** The layers of `dir` (inside the root) and of every folder above it up to the root, general first. */
  private applyingIn(dir: string): Promise<Applying[]> {
    let found = this.applying.get(dir)
    if (!found) {
      const known = this.applyingNow(dir)
      found = known ? Promise.resolve(known) : this.collect(dir)
      this.applying.set(dir, found)
    }
    return found
  }

  private async collect(dir: string): Promise<Applying[]> {
    const above = dir === this.root ? [] : await this.applyingIn(dirname(dir))
    const out = extend(above, basename(dir), await this.layer(dir))
    this.applyingKnown.set(dir, out)
    return out
  }

  /**
   * The rules for the entries of folder `dir`, compiled once per folder: each entry is then tested by name
   * against every .gitignore from the root down, with no path arithmetic per entry. `dir` is assumed not ignored.
   */
  async entriesOf(dir: string): Promise<EntryRules> {
    if (!isInside(this.root, dir)) return () => undefined
    return entryRules(await this.applyingIn(dir))
  }

  /** `entriesOf` at once, when every .gitignore on the way is already read or shown absent; else undefined. */
  entriesOfNow(dir: string): EntryRules | undefined {
    if (!isInside(this.root, dir)) return () => undefined
    const applying = this.applyingNow(dir)
    return applying && entryRules(applying)
  }

  /** Why the entry itself is ignored (its folders are assumed not ignored), or undefined. */
  private async entryReason(abs: string, isDir: boolean): Promise<string | undefined> {
    if (!isInside(this.root, abs) || abs === this.root) return undefined
    return (await this.entriesOf(dirname(abs)))(basename(abs), isDir)
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
