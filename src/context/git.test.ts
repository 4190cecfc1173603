import { writeFile } from "node:fs/promises"
import { join } from "node:path"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { findRepositoryRoot, MAX_GIT_STATUS, readGit, summarizeStatus } from "./git.js"
import { cleanup, git, tempDir, writeTree } from "./test-helpers/workspace.js"

describe("readGit", () => {
  it("reads the root, branch and a porcelain status", async () => {
    const dir = await tempDir()
    try {
      git(dir, "init", "-q", "-b", "trunk")
      await writeFile(join(dir, "a.txt"), "a")
      git(dir, "add", "a.txt")
      git(dir, "commit", "-q", "-m", "one")
      await writeFile(join(dir, "a.txt"), "changed")
      await writeFile(join(dir, "new.txt"), "new")
      const { git: facts } = await readGit(dir)
      expect(facts).toMatchObject({ branch: "trunk", status: " M a.txt\n?? new.txt" })
      expect(facts?.root.endsWith(dir.split("/").pop()!)).toBe(true)
    } finally {
      await cleanup(dir)
    }
  })

  it("names a detached head by its commit", async () => {
    const dir = await tempDir()
    try {
      git(dir, "init", "-q", "-b", "main")
      git(dir, "commit", "-q", "--allow-empty", "-m", "one")
      const sha = git(dir, "rev-parse", "--short", "HEAD").trim()
      git(dir, "checkout", "-q", "--detach")
      expect((await readGit(dir)).git?.branch).toBe(`detached at ${sha}`)
    } finally {
      await cleanup(dir)
    }
  })

  it("gives nothing outside a repository", async () => {
    const dir = await tempDir()
    try {
      expect(await readGit(dir)).toEqual({ diagnostics: [] })
    } finally {
      await cleanup(dir)
    }
  })

  it("cuts a long status at a line end within 10,000 characters", async () => {
    const dir = await tempDir()
    try {
      git(dir, "init", "-q")
      for (let i = 0; i < 600; i++) await writeFile(join(dir, `untracked-file-${String(i).padStart(4, "0")}.txt`), "")
      const status = (await readGit(dir)).git!.status
      expect(status.length).toBeLessThanOrEqual(MAX_GIT_STATUS)
      expect(status.startsWith("?? untracked-file-0000.txt\n")).toBe(true)
      expect(status).toMatch(/\n… \d+ more lines not shown$/)
    } finally {
      await cleanup(dir)
    }
  })
})

describe("findRepositoryRoot", () => {
  it("finds the nearest folder with a .git folder or file, or nothing", async () => {
    const dir = await tempDir()
    try {
      await writeTree(dir, {
        "repo/.git/HEAD": "ref: refs/heads/main\n",
        "repo/a/b/x": "",
        "repo/a/wt/.git": "gitdir: elsewhere\n",
      })
      expect(await findRepositoryRoot(join(dir, "repo/a/b"))).toBe(join(dir, "repo"))
      expect(await findRepositoryRoot(join(dir, "repo/a/wt"))).toBe(join(dir, "repo/a/wt"))
      expect(await findRepositoryRoot(dir)).toBeUndefined()
    } finally {
      await cleanup(dir)
    }
  })
})

describe("summarizeStatus", () => {
  it("keeps whole lines, stays within the limit and counts what it left out", () => {
    const line = fc.stringMatching(/^[ MADRCU?!]{2} [a-z/._-]{1,60}$/)
    fc.assert(
      fc.property(fc.array(line, { maxLength: 400 }), fc.integer({ min: 60, max: 3000 }), (lines, max) => {
        const text = lines.join("\n")
        const out = summarizeStatus(text, max)
        expect(out.length).toBeLessThanOrEqual(Math.max(max, text.length <= max ? text.length : 0))
        if (text.length <= max) {
          expect(out).toBe(text)
          return
        }
        const shown = out.split("\n")
        const notice = shown.pop()!
        expect(lines.slice(0, shown.length)).toEqual(shown)
        expect(notice).toBe(
          `… ${lines.length - shown.length} more line${lines.length - shown.length === 1 ? "" : "s"} not shown`,
        )
      }),
    )
  })
})
