import { join, relative } from "node:path"
import fc from "fast-check"
import ignore from "ignore"
import { describe, expect, it } from "vitest"
import { allMatchByName } from "../ignore-rules.js"
import { DirCache } from "./dir-cache.js"
import { GitignoreRules } from "./gitignore.js"
import { cleanup, git, ignoredByGit, slashRuleTakenBack, tempDir, writeTree } from "./test-helpers/workspace.js"
import { walkFolders } from "./walk.js"

/** A generated workspace: files by POSIX path, some of them .gitignore files. */
type Tree = Record<string, string>

const folderName = fc.constantFrom("a", "b", "dist", "build", "keep", "lib")
const fileName = fc.constantFrom("f.ts", "x.log", "AGENTS.md", "notes.md")
const rule = fc.constantFrom(
  "dist/",
  "*.log",
  "build",
  "!build",
  "/a",
  "a/b/",
  "keep/",
  "!keep/",
  "**/lib",
  "b/*",
  "!b/keep",
  "# a note",
  "",
  "lib/",
  "*.md",
  "!AGENTS.md",
  // Rules that match by name alone (asked with the name only) mixed with ones that do not.
  "*",
  "!*/",
  "lib/ ",
  "\\!keep",
  "b\\/",
)
const folderPath = fc.array(folderName, { minLength: 0, maxLength: 3 }).map((parts) => parts.join("/"))
const tree: fc.Arbitrary<Tree> = fc
  .tuple(
    fc.array(fc.tuple(folderPath, fileName), { minLength: 1, maxLength: 25 }),
    fc.array(fc.tuple(folderPath, fc.array(rule, { maxLength: 5 })), { maxLength: 4 }),
  )
  .map(([files, ignores]) => {
    const out: Tree = {}
    for (const [folder, name] of files) out[folder === "" ? name : `${folder}/${name}`] = "text\n"
    for (const [folder, rules] of ignores) out[folder === "" ? ".gitignore" : `${folder}/.gitignore`] = rules.join("\n")
    return out
  })

/** Every folder of a tree below its root, POSIX form. */
function foldersOf(files: Tree): Set<string> {
  const out = new Set<string>()
  for (const path of Object.keys(files)) {
    const parts = path.split("/")
    for (let i = 1; i < parts.length; i++) out.add(parts.slice(0, i).join("/"))
  }
  return out
}

/**
 * What the `ignore` library says of `path` (POSIX, below the root) when every .gitignore from the root down to
 * its folder is applied in turn, the later one deciding. Its folders are not looked at. A .gitignore whose
 * rules all match by name is asked about the last part of the path, as git matches such rules (the library,
 * given the whole path, would answer with its own verdict on a folder a deeper file took back).
 */
function ignoredByLayers(files: Tree, path: string, isDir: boolean): boolean {
  const parts = path.split("/")
  let ignored = false
  for (let depth = 0; depth < parts.length; depth++) {
    const folder = parts.slice(0, depth).join("/")
    const text = files[folder === "" ? ".gitignore" : `${folder}/.gitignore`]
    if (text === undefined) continue
    const below = allMatchByName(text) ? parts.at(-1)! : parts.slice(depth).join("/")
    const result = ignore()
      .add(text)
      .test(below + (isDir ? "/" : ""))
    if (result.ignored) ignored = true
    else if (result.unignored) ignored = false
  }
  return ignored
}

/** The folders a walk should list: not hidden, not ignored themselves, under no ignored folder; depth-first by name. */
function expectedFolders(files: Tree): string[] {
  const all = [...foldersOf(files)]
  const kept = all.filter((folder) => {
    const parts = folder.split("/")
    return parts.every((_, i) => !ignoredByLayers(files, parts.slice(0, i + 1).join("/"), true))
  })
  const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
  return kept.sort((a, b) => {
    const pa = a.split("/")
    const pb = b.split("/")
    for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
      const c = byName(pa[i]!, pb[i]!)
      if (c !== 0) return c
    }
    return pa.length - pb.length
  })
}

/** True when a file is ignored by itself or through any folder it is in. */
function expectedIgnored(files: Tree, path: string): boolean {
  const parts = path.split("/")
  for (let i = 1; i < parts.length; i++) if (ignoredByLayers(files, parts.slice(0, i).join("/"), true)) return true
  return ignoredByLayers(files, path, false)
}

describe("walkFolders and GitignoreRules against the ignore library", () => {
  it("list exactly the folders and files the layered .gitignore files keep, in depth-first name order", async () => {
    await fc.assert(
      fc.asyncProperty(tree, async (files) => {
        const dir = await tempDir()
        try {
          await writeTree(dir, files)
          const dirs = new DirCache()
          const rules = new GitignoreRules(dir, dirs, (abs) => abs)
          const walk = await walkFolders(dir, dirs, rules)
          expect(walk.folders.map((f) => relative(dir, f).split("\\").join("/"))).toEqual(expectedFolders(files))
          for (const path of Object.keys(files)) {
            const reason = await rules.reason(join(dir, ...path.split("/")), false)
            expect({ path, ignored: reason !== undefined }).toEqual({ path, ignored: expectedIgnored(files, path) })
          }
        } finally {
          await cleanup(dir)
        }
      }),
      { numRuns: 40 },
    )
  })
})

describe("walkFolders and GitignoreRules against git itself", () => {
  it("walk the folders git does not ignore and give a reason for exactly the files git ignores", async () => {
    await fc.assert(
      fc.asyncProperty(tree, async (files) => {
        fc.pre(!slashRuleTakenBack(files))
        const dir = await tempDir()
        try {
          await writeTree(dir, files)
          git(dir, "init", "-q")
          const folders = [...foldersOf(files)]
          const paths = Object.keys(files)
          // Folders are named without a trailing slash: git then reads their kind from the disk (with one, it
          // would also apply the folder's own .gitignore to the folder itself).
          const ignored = ignoredByGit(dir, [...folders, ...paths])
          const dirs = new DirCache()
          const rules = new GitignoreRules(dir, dirs, (abs) => abs)
          const walk = await walkFolders(dir, dirs, rules)
          const walked = walk.folders.map((f) => relative(dir, f).split("\\").join("/"))
          expect(new Set(walked)).toEqual(new Set(folders.filter((f) => !ignored.has(f))))
          for (const path of paths) {
            const reason = await rules.reason(join(dir, ...path.split("/")), false)
            expect({ path, ignored: reason !== undefined }).toEqual({ path, ignored: ignored.has(path) })
          }
        } finally {
          await cleanup(dir)
        }
      }),
      { numRuns: 60 },
    )
  })

  it("take back, by a deeper .gitignore, a folder excluded by a name rule above it", async () => {
    const dir = await tempDir()
    try {
      await writeTree(dir, { ".gitignore": "build\n", "a/.gitignore": "!build\n", "a/build/x/f.ts": "text\n" })
      git(dir, "init", "-q")
      expect(ignoredByGit(dir, ["a/build", "a/build/x", "a/build/x/f.ts"]).size).toBe(0)
      const dirs = new DirCache()
      const rules = new GitignoreRules(dir, dirs, (abs) => abs)
      const walk = await walkFolders(dir, dirs, rules)
      expect(walk.folders.map((f) => relative(dir, f).split("\\").join("/"))).toEqual(["a", "a/build", "a/build/x"])
      expect(await rules.reason(join(dir, "a", "build", "x", "f.ts"), false)).toBeUndefined()
    } finally {
      await cleanup(dir)
    }
  })
})
