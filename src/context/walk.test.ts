import { symlink } from "node:fs/promises"
import { join, relative } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { DirCache } from "./dir-cache.js"
import { gather } from "./gather.js"
import { GitignoreRules } from "./gitignore.js"
import { cleanup, tempDir, writeTree } from "./test-helpers/workspace.js"
import { walkFolders } from "./walk.js"

let dir: string
beforeEach(async () => {
  dir = await tempDir()
  await writeTree(dir, {
    ".gitignore": "dist/\n!keep/\n",
    "a/b/c/x.ts": "",
    "a/b2/x.ts": "",
    "a-z/x.ts": "",
    "node_modules/pkg/AGENTS.md": "",
    ".hidden/AGENTS.md": "",
    "dist/AGENTS.md": "",
    "sub/.gitignore": "secret/\n",
    "sub/secret/AGENTS.md": "",
    "sub/open/AGENTS.md": "",
  })
  await symlink(dir, join(dir, "a", "loop"))
})
afterEach(async () => {
  await cleanup(dir)
})

const walk = async (limit?: number) => {
  const dirs = new DirCache()
  const result = await walkFolders(dir, dirs, new GitignoreRules(dir, dirs, (a) => a), limit)
  return { ...result, folders: result.folders.map((f) => relative(dir, f)) }
}

describe("walkFolders", () => {
  it("skips dependency trees, hidden and gitignored folders and folder links; sorts depth-first by name", async () => {
    expect(await walk()).toEqual({
      folders: ["a", "a/b", "a/b/c", "a/b2", "a-z", "sub", "sub/open"],
      limited: false,
    })
  })

  it("gives the event loop turns during a long walk (its listings are read synchronously)", async () => {
    const many: Record<string, string> = {}
    for (let i = 0; i < 300; i++) many[`many/f${i}/x.ts`] = ""
    await writeTree(dir, many)
    let turns = 0
    let walking = true
    const turn = () => {
      turns++
      if (walking) setImmediate(turn)
    }
    setImmediate(turn)
    const { folders } = await walk()
    walking = false
    expect(folders.filter((f) => f.startsWith("many/"))).toHaveLength(300)
    // A turn every 64 folders listed: at least four in about 310 folders.
    expect(turns).toBeGreaterThanOrEqual(4)
  })

  it("keeps the shallowest folders when the limit is hit, the same ones every time", async () => {
    expect(await walk(4)).toEqual({ folders: ["a", "a/b", "a-z", "sub"], limited: true })
    expect(await walk(4)).toEqual(await walk(4))
  })

  it("becomes a diagnostic in gather", async () => {
    const home = await tempDir()
    try {
      const { diagnostics } = await gather({
        cwd: dir,
        home,
        env: {},
        trust: true,
        model: { id: "m", provider: "p" },
        walkLimit: 2,
      })
      expect(diagnostics).toContainEqual(expect.objectContaining({ code: "walk-limit", level: "warning" }))
    } finally {
      await cleanup(home)
    }
  })
})
