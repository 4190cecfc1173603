import { mkdir, rename, rm, symlink, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { DirCache } from "./dir-cache.js"
import { cleanup, tempDir, writeTree } from "./test-helpers/workspace.js"

let dir: string
beforeEach(async () => {
  dir = await tempDir()
})
afterEach(async () => {
  await cleanup(dir)
})

const names = async (dirs: DirCache, folder: string) => (await dirs.list(folder))?.map((e) => e.name)

describe("DirCache", () => {
  it("answers absence from a listing already asked for: no entry, or a file on the way; never for an existing file", async () => {
    await writeTree(dir, { "a.md": "", "sub/b.md": "" })
    const dirs = new DirCache()
    dirs.prefetch(dir)
    expect(dirs.absent(join(dir, "a.md"))).toBe(false)
    expect(dirs.absent(join(dir, "sub"))).toBe(false)
    expect(dirs.absent(join(dir, "missing"))).toBe(true)
    expect(dirs.absent(join(dir, "missing", "deeper", "x.md"))).toBe(true)
    expect(dirs.absent(join(dir, "a.md", "below"))).toBe(true)
    // `sub` was not asked for: what lies in it is not known from the listing above.
    expect(dirs.absent(join(dir, "sub", "nothing.md"))).toBe(false)
    // A folder created after the listing was read stays absent for this gather (one snapshot), not for the next.
    await mkdir(join(dir, "late"))
    expect(await dirs.list(join(dir, "late"))).toBeUndefined()
    expect(await names(new DirCache(), join(dir, "late"))).toEqual([])
  })

  it("proves a path free of symbolic links only when every step down is a plain folder or file", async () => {
    await writeTree(dir, { "a/b/c.md": "", "real/x.md": "", "f.md": "" })
    await symlink(join(dir, "real"), join(dir, "a", "link"))
    await symlink(join(dir, "f.md"), join(dir, "a", "file-link.md"))
    const dirs = new DirCache()
    expect(dirs.linkFree(dir, join(dir, "a", "b", "c.md"))).toBe(true)
    expect(dirs.linkFree(dir, join(dir, "a", "b"))).toBe(true)
    expect(dirs.linkFree(dir, join(dir, "a", "link", "x.md"))).toBe(false)
    expect(dirs.linkFree(dir, join(dir, "a", "file-link.md"))).toBe(false)
    expect(dirs.linkFree(dir, join(dir, "f.md", "x"))).toBe(false)
    expect(dirs.linkFree(dir, join(dir, "a", "missing.md"))).toBe(false)
    expect(dirs.linkFree(join(dir, "a"), join(dir, "f.md"))).toBe(false)
  })

  it("sees entries added, removed and renamed in a folder kept from earlier gathers", async () => {
    await writeTree(dir, { "a.md": "", "b.md": "" })
    // Twice: a folder is kept from its second read on.
    expect(await names(new DirCache(), dir)).toEqual(["a.md", "b.md"])
    expect(await names(new DirCache(), dir)).toEqual(["a.md", "b.md"])
    expect(await names(new DirCache(), dir)).toEqual(["a.md", "b.md"])
    await writeFile(join(dir, "c.md"), "")
    expect(await names(new DirCache(), dir)).toEqual(["a.md", "b.md", "c.md"])
    await rm(join(dir, "a.md"))
    expect(await names(new DirCache(), dir)).toEqual(["b.md", "c.md"])
    await writeFile(join(dir, "b.md"), "changed content leaves the folder's entries as they are")
    expect(await names(new DirCache(), dir)).toEqual(["b.md", "c.md"])
    await rename(join(dir, "c.md"), join(dir, "d.md"))
    expect(await names(new DirCache(), dir)).toEqual(["b.md", "d.md"])
  })
})
