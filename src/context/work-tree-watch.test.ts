import { execFileSync } from "node:child_process"
import { mkdirSync, watch, writeFileSync } from "node:fs"
import { appendFile, chmod, mkdir, readFile, rename, rm, symlink, writeFile } from "node:fs/promises"
import { delimiter, dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { readGit } from "./git.js"
import { cleanup, git, tempDir, writeTree } from "./test-helpers/workspace.js"
import { changesReported, prunedFolders, type WatchBudget, WorkTreeWatch } from "./work-tree-watch.js"

describe("prunedFolders", () => {
  it("keeps the ignored folders git listed without entering them", () => {
    // What git 2.39 lists for a tree where dist/ holds a tracked file and foo/ holds only ignored files.
    const listing = ["build/", "dist/a/", "foo/", "foo/bar/", "foo/bar/y.log", "foo/x.log", "src/b.log", ""].join("\0")
    expect([...prunedFolders(listing)].sort()).toEqual(["build", "dist/a"])
    expect(prunedFolders("").size).toBe(0)
  })
})

const REAL_GIT = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim()

/**
 * What `git status` prints now, asked directly (the truth a kept answer must equal). Without optional locks,
 * as promptline asks it: a status that refreshes the index writes it, which the watch sees as a change.
 */
function statusNow(dir: string): string {
  const args = ["status", "--porcelain=v1", "--untracked-files=normal", "--ignore-submodules=dirty"]
  const env = { ...process.env, LC_ALL: "C", GIT_OPTIONAL_LOCKS: "0" }
  const out = execFileSync(REAL_GIT, args, { cwd: dir, encoding: "utf8", env })
  return out.replace(/\n+$/, "")
}

describe.skipIf(process.platform !== "linux")("git status kept while a watch sees no change", () => {
  let bin: string
  let log: string
  const path = process.env.PATH
  beforeAll(async () => {
    // git behind a wrapper that logs each command, so a test can tell whether status ran.
    bin = await tempDir("promptline-git-log-")
    log = join(bin, "log")
    await writeFile(log, "")
    await writeFile(join(bin, "git"), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec '${REAL_GIT}' "$@"\n`)
    await chmod(join(bin, "git"), 0o755)
    process.env.PATH = `${bin}${delimiter}${path}`
  })
  afterAll(async () => {
    process.env.PATH = path
    await cleanup(bin)
  })
  const statusRuns = async () => (await readFile(log, "utf8")).split("\n").filter((l) => / status --porcelain/.test(l))

  /** Gathers git facts until one runs no status (the watch is trusted); how many it took. */
  async function untilKept(dir: string): Promise<number> {
    for (let i = 1; i <= 7; i++) {
      const before = (await statusRuns()).length
      const facts = await readGit(dir)
      expect(facts.git?.status).toBe(statusNow(dir))
      if ((await statusRuns()).length === before) return i
    }
    throw new Error("status was never kept")
  }

  async function repository(): Promise<string> {
    const dir = await tempDir()
    await writeTree(dir, {
      ".gitignore": "build/\ncache/\n*.log\n",
      "cache/c.txt": "an ignored folder git does not enter\n",
      "a.txt": "alpha\n",
      "src/b.ts": "export const b = 1\n",
      "src/deep/c.ts": "export const c = 1\n",
      ".github/w.yml": "on: push\n",
      "build/out.js": "ignored\n",
      "build/keep.js": "tracked in an ignored folder\n",
    })
    git(dir, "init", "-q", "-b", "main")
    git(dir, "add", "-A")
    git(dir, "add", "-f", "build/keep.js")
    git(dir, "commit", "-q", "-m", "one")
    await writeFile(join(dir, "a.txt"), "alpha, second\n")
    git(dir, "commit", "-q", "-a", "-m", "two")
    return dir
  }

  it("runs status on the first gathers, then answers from the kept status until something changes", async () => {
    const dir = await repository()
    try {
      // A command that gathers twice starts no watch: no listing for a plan, status each time.
      const plans = async () => (await readFile(log, "utf8")).split("\n").filter((l) => / ls-files /.test(l)).length
      const plansBefore = await plans()
      for (let i = 0; i < 2; i++) expect((await readGit(dir)).git?.status).toBe("")
      expect(await plans()).toBe(plansBefore)
      // The third gather plans the watch, the fourth confirms it, the fifth answers from the kept status.
      expect(await untilKept(dir)).toBe(3)
      expect(await plans()).toBe(plansBefore + 2)
      const before = (await statusRuns()).length
      for (let i = 0; i < 3; i++) expect((await readGit(dir)).git?.status).toBe("")
      expect((await statusRuns()).length).toBe(before)
      // Written and gathered at once, with no turn of the event loop in between.
      await writeFile(join(dir, "src/deep/c.ts"), "export const c = 2\n")
      expect((await readGit(dir)).git?.status).toBe(" M src/deep/c.ts")
      expect((await statusRuns()).length).toBe(before + 1)
    } finally {
      await cleanup(dir)
    }
  })

  /** Appends to a file, making its folder first if an earlier change moved it away. */
  async function append(dir: string, path: string, text: string): Promise<void> {
    await mkdir(dirname(join(dir, path)), { recursive: true })
    await appendFile(join(dir, path), text)
  }

  /** Changes a test applies to a repository; each works whatever ran before. */
  const changes: Record<string, (dir: string) => Promise<void>> = {
    "edit a tracked file": (dir) => writeFile(join(dir, "a.txt"), "ALPHA\n"),
    "edit a tracked file in a nested folder": (dir) => append(dir, "src/deep/c.ts", "// more\n"),
    "edit a tracked file in a hidden folder": (dir) => writeFile(join(dir, ".github/w.yml"), "on: pull\n"),
    "edit a tracked file in an ignored folder": (dir) => append(dir, "build/keep.js", "x\n"),
    "write an ignored file": (dir) => writeTree(dir, { "build/more.js": "x\n", "src/x.log": "x\n" }),
    "add an untracked file": (dir) => writeFile(join(dir, "n.txt"), "new\n"),
    "add new folders with a file": (dir) => writeTree(dir, { "u/v/w.txt": "deep\n" }),
    "add a hidden folder": (dir) => writeTree(dir, { ".hidden/h.txt": "h\n" }),
    "add a folder of ignored files only": (dir) => writeTree(dir, { "logs/a/only.log": "x\n" }),
    "add a file beside the ignored ones": (dir) => writeTree(dir, { "logs/a/seen.txt": "x\n" }),
    "remove a tracked file": (dir) => rm(join(dir, "src/b.ts"), { force: true }),
    "make a file executable": (dir) => chmod(join(dir, "a.txt"), 0o755),
    "ignore a folder": (dir) => append(dir, ".gitignore", "u/\nsrc/deep/\n"),
    "ignore nothing": (dir) => writeFile(join(dir, ".gitignore"), ""),
    "exclude a file locally": (dir) => writeTree(dir, { ".git/info/exclude": "n.txt\n" }),
    "exclude a folder locally": (dir) => writeTree(dir, { ".git/info/exclude": "u/\n" }),
    "exclude nothing locally": (dir) => writeTree(dir, { ".git/info/exclude": "" }),
    "empty the new folders": (dir) => rm(join(dir, "u/v/w.txt"), { force: true }),
    "rename a folder": async (dir) => {
      await mkdir(join(dir, "src/deep"), { recursive: true })
      await rm(join(dir, "src/moved"), { recursive: true, force: true })
      await rename(join(dir, "src/deep"), join(dir, "src/moved"))
    },
    "link to a folder": async (dir) => {
      await rm(join(dir, "lnk"), { force: true })
      await symlink("src", join(dir, "lnk"))
    },
    "stage everything": async (dir) => {
      git(dir, "add", "-A")
    },
    "commit everything": async (dir) => {
      git(dir, "add", "-A")
      git(dir, "commit", "-q", "--allow-empty", "-m", "more")
    },
    "force-add a file in an ignored folder": async (dir) => {
      await writeTree(dir, { "build/forced/f.js": "f\n" })
      git(dir, "add", "-f", "build/forced/f.js")
      await append(dir, "build/forced/f.js", "g\n")
    },
    "force-add a file in a folder git did not enter": async (dir) => {
      await writeTree(dir, { "cache/c.txt": "c\n" })
      git(dir, "add", "-f", "cache/c.txt")
    },
    "edit the file in that folder": (dir) => append(dir, "cache/c.txt", "more\n"),
    "empty that folder": async (dir) => {
      await rm(join(dir, "cache/c.txt"), { force: true })
    },
    "remove a folder and make it again": async (dir) => {
      await rm(join(dir, "src/deep"), { recursive: true, force: true })
      await writeTree(dir, { "src/deep/c.ts": "export const c = 1\n" })
    },
    "replace the head commit with its parent": async (dir) => {
      // Only a ref under refs/replace changes: the tree and the index stay as they are.
      git(dir, "replace", "-f", "HEAD", "HEAD~1")
    },
    "reset the branch": async (dir) => {
      git(dir, "reset", "-q", "--soft", "HEAD")
      git(dir, "update-ref", "refs/heads/main", git(dir, "rev-parse", "HEAD").trim())
    },
    "switch to a new branch and back": async (dir) => {
      git(dir, "checkout", "-q", "-B", "side")
      git(dir, "checkout", "-q", "main")
    },
  }

  it("gives what git status prints now after any sequence of changes, each made while the status is kept", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...Object.keys(changes)), { minLength: 1, maxLength: 7 }),
        async (names) => {
          const dir = await repository()
          try {
            await untilKept(dir)
            for (const name of names) {
              await changes[name]!(dir)
              expect((await readGit(dir)).git?.status, name).toBe(statusNow(dir))
              await untilKept(dir)
            }
          } finally {
            await cleanup(dir)
          }
        },
      ),
      {
        numRuns: 20,
        // Pairs where the first change alters which folders git reads and the second changes one of them.
        examples: [
          [["force-add a file in a folder git did not enter", "edit the file in that folder"]],
          [["remove a folder and make it again", "edit a tracked file in a nested folder"]],
          [["replace the head commit with its parent"]],
          [["ignore nothing", "empty that folder"]],
          [["add a folder of ignored files only", "add a file beside the ignored ones"]],
          [["exclude a file locally", "ignore nothing", "empty that folder"]],
          [
            [
              "add new folders with a file",
              "exclude a folder locally",
              "add a hidden folder",
              "exclude nothing locally",
              "empty the new folders",
            ],
          ],
          [["rename a folder", "edit a tracked file in a nested folder", "ignore a folder", "rename a folder"]],
        ],
      },
    )
  }, 180_000)

  /** Gathers `times` times, each answer what git prints now, and checks that every one ran status. */
  async function expectStatusEveryTime(dir: string, times: number, options?: { watch?: boolean }): Promise<void> {
    const before = (await statusRuns()).length
    for (let i = 0; i < times; i++) expect((await readGit(dir, options)).git?.status).toBe(statusNow(dir))
    expect((await statusRuns()).length).toBe(before + times)
  }

  /** Runs `body` on a new repository, with XDG_CONFIG_HOME (where git finds the user's ignore file) set to a new folder. */
  async function withConfigHome(body: (dir: string, config: string) => Promise<void>): Promise<void> {
    const dir = await repository()
    const config = await tempDir("promptline-xdg-")
    const xdg = process.env.XDG_CONFIG_HOME
    process.env.XDG_CONFIG_HOME = config
    try {
      await body(dir, config)
    } finally {
      if (xdg === undefined) delete process.env.XDG_CONFIG_HOME
      else process.env.XDG_CONFIG_HOME = xdg
      await cleanup(dir)
      await cleanup(config)
    }
  }

  it("runs status again when an ignore file outside the work tree changes", async () => {
    await withConfigHome(async (dir, config) => {
      await writeTree(dir, { "n.txt": "n\n", "m.txt": "m\n" })
      await untilKept(dir)
      // The user's own ignore file (XDG_CONFIG_HOME/git/ignore), read by git, written outside the tree.
      await writeTree(config, { "git/ignore": "n.txt\n" })
      expect((await readGit(dir)).git?.status).toBe("?? m.txt")
      // One named by core.excludesFile in the repository's config, then changed.
      const named = join(config, "elsewhere-ignore")
      await writeFile(named, "")
      git(dir, "config", "core.excludesFile", named)
      expect((await readGit(dir)).git?.status).toBe("?? m.txt\n?? n.txt")
      await untilKept(dir)
      await writeFile(named, "m.txt\n")
      expect((await readGit(dir)).git?.status).toBe("?? n.txt")
    })
  })

  it("plans again when an ignore rule from outside the tree lets git into a folder", async () => {
    await withConfigHome(async (dir, config) => {
      await writeTree(config, { "git/ignore": "vendor/\n" })
      await writeTree(dir, { "vendor/x.txt": "x\n" })
      await untilKept(dir)
      await writeTree(config, { "git/ignore": "" })
      expect((await readGit(dir)).git?.status).toBe("?? vendor/")
      await rm(join(dir, "vendor/x.txt"))
      expect((await readGit(dir)).git?.status).toBe(statusNow(dir))
      await untilKept(dir)
      await writeTree(dir, { "vendor/new.txt": "n\n" })
      expect((await readGit(dir)).git?.status).toBe("?? vendor/")
    })
  })

  it("never rejects when a config names an ignore file that cannot be looked at", async () => {
    const dir = await repository()
    try {
      git(dir, "config", "core.excludesFile", "/dev/null/ignore")
      for (let i = 0; i < 6; i++) expect((await readGit(dir)).git?.status).toBe(statusNow(dir))
    } finally {
      await cleanup(dir)
    }
  })

  it("trusts no kept status while the process watches other folders too", async () => {
    const dir = await repository()
    const other = await tempDir()
    const watcher = watch(other, { persistent: false })
    try {
      await expectStatusEveryTime(dir, 7)
    } finally {
      watcher.close()
      await cleanup(dir)
      await cleanup(other)
    }
  })

  it("runs status every time in a work tree with a folder name that is not UTF-8", async () => {
    const dir = await repository()
    try {
      const odd = Buffer.concat([Buffer.from(`${dir}/d`), Buffer.from([0xff])])
      mkdirSync(odd)
      writeFileSync(Buffer.concat([odd, Buffer.from("/x.log")]), "ignored\n")
      await expectStatusEveryTime(dir, 6)
      writeFileSync(Buffer.concat([odd, Buffer.from("/new.txt")]), "seen\n")
      expect((await readGit(dir)).git?.status).toBe('?? "d\\377/"')
    } finally {
      await cleanup(dir)
    }
  })

  it("runs status every time when the watch is switched off", async () => {
    const dir = await repository()
    try {
      await expectStatusEveryTime(dir, 6, { watch: false })
    } finally {
      await cleanup(dir)
    }
  })

  it("runs status every time in a work tree that holds another repository", async () => {
    const dir = await repository()
    try {
      await writeTree(dir, { "vendor/lib/x.txt": "x\n" })
      git(join(dir, "vendor/lib"), "init", "-q")
      await expectStatusEveryTime(dir, 6)
    } finally {
      await cleanup(dir)
    }
  })

  it("lets a process that gathered repeatedly exit on its own", async () => {
    const dir = await repository()
    try {
      const script = [
        `const { readGit } = await import(${JSON.stringify(new URL("./git.ts", import.meta.url).href)})`,
        `for (let i = 0; i < 5; i++) await readGit(${JSON.stringify(dir)})`,
        `process.stdout.write("done")`,
      ].join("\n")
      const out = execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
        cwd: fileURLToPath(new URL("../..", import.meta.url)),
        encoding: "utf8",
        timeout: 60_000,
      })
      expect(out).toBe("done")
    } finally {
      await cleanup(dir)
    }
  })
})

describe.skipIf(process.platform !== "linux")("WorkTreeWatch", () => {
  it("is trusted once a second plan finds the same folders, and stale when a folder comes", async () => {
    const dir = await tempDir()
    try {
      await writeTree(dir, { "a/b/c.txt": "c\n", "build/x.js": "x\n", ".git/refs/heads/main": "0\n" })
      const watch = new WorkTreeWatch(dir)
      try {
        watch.plan("build/\0")
        const mark = watch.mark()
        expect(mark).toBeDefined()
        expect(watch.unchanged(mark!)).toBe(false)
        expect(watch.needsPlan).toBe(true)
        watch.plan("build/\0")
        expect(watch.unchanged(mark!)).toBe(true)
        // Inside a pruned folder nothing is watched.
        await writeFile(join(dir, "build/y.js"), "y\n")
        await changesReported()
        expect(watch.unchanged(mark!)).toBe(true)
        await writeFile(join(dir, "a/b/c.txt"), "changed\n")
        await changesReported()
        expect(watch.unchanged(mark!)).toBe(false)
        expect(watch.needsPlan).toBe(false)
        await mkdir(join(dir, "a/new"))
        await changesReported()
        expect(watch.needsPlan).toBe(true)
        expect(watch.mark()).toBeUndefined()
        // A different listing (a rule changed) is not trusted until a plan after it agrees.
        watch.plan("")
        expect(watch.needsPlan).toBe(true)
        watch.plan("")
        expect(watch.needsPlan).toBe(false)
        // A watched folder removed, and the git folder's info made: both change what is watched.
        await rm(join(dir, "a/new"), { recursive: true })
        await changesReported()
        expect(watch.needsPlan).toBe(true)
        watch.plan("")
        watch.plan("")
        expect(watch.needsPlan).toBe(false)
        await mkdir(join(dir, ".git/info"))
        await changesReported()
        expect(watch.needsPlan).toBe(true)
        watch.plan("")
        watch.plan("")
        expect(watch.needsPlan).toBe(false)
        // A rule changed while git made its listing: the same listing again does not make the watch trusted.
        await writeFile(join(dir, "a/b/c.txt"), "stale\n")
        await changesReported()
        expect(watch.needsPlan).toBe(false)
        const since = watch.changes
        await writeFile(join(dir, ".gitignore"), "a/\n")
        await changesReported()
        watch.plan("", since)
        expect(watch.needsPlan).toBe(true)
        watch.plan("", watch.changes)
        expect(watch.needsPlan).toBe(false)
      } finally {
        watch.close()
      }
    } finally {
      await cleanup(dir)
    }
  })

  it("shares one budget of watched folders among work trees, given back when a watch closes", async () => {
    const one = await tempDir()
    const two = await tempDir()
    try {
      for (const dir of [one, two])
        await writeTree(dir, { "a/1": "", "b/2": "", ".git/HEAD": "ref: refs/heads/main\n" })
      const budget: WatchBudget = { total: 5, used: 0, burstLimit: 1000, burst: 0, members: new Set() }
      const first = new WorkTreeWatch(one, 100, budget)
      first.plan("")
      // The root, a, b and the git folder.
      expect(budget.used).toBe(4)
      const second = new WorkTreeWatch(two, 100, budget)
      second.plan("")
      expect(second.refused).toBe("the process's watch budget is used up")
      expect(budget.used).toBe(4)
      first.close()
      expect(budget.used).toBe(0)
      const third = new WorkTreeWatch(two, 100, budget)
      third.plan("")
      expect(third.refused).toBeUndefined()
      third.close()
    } finally {
      await cleanup(one)
      await cleanup(two)
    }
  })

  it("plans again after a burst of events that may have filled the kernel's queue, in every watch", async () => {
    const one = await tempDir()
    const two = await tempDir()
    try {
      for (const dir of [one, two]) await writeTree(dir, { "a/1": "", ".git/HEAD": "ref: refs/heads/main\n" })
      const budget: WatchBudget = { total: 100, used: 0, burstLimit: 8, burst: 0, members: new Set() }
      const watches = [new WorkTreeWatch(one, 100, budget), new WorkTreeWatch(two, 100, budget)]
      try {
        for (const watch of watches) {
          watch.plan("")
          watch.plan("")
        }
        // Fewer events than the limit: the watch only sees changes.
        for (let i = 0; i < 3; i++) await writeFile(join(one, "a/1"), `${i}`)
        await changesReported()
        expect(watches.map((w) => w.needsPlan)).toEqual([false, false])
        // Written with no turn of the loop in between, read in one go: as many events as the limit.
        for (let i = 0; i < 8; i++) writeFileSync(join(one, `a/f${i}`), "x")
        await changesReported()
        expect(watches.map((w) => w.needsPlan)).toEqual([true, true])
      } finally {
        for (const watch of watches) watch.close()
      }
    } finally {
      await cleanup(one)
      await cleanup(two)
    }
  })

  it("refuses a tree with more folders than it may watch, for good", async () => {
    const dir = await tempDir()
    try {
      await writeTree(dir, { "a/1": "", "b/2": "", "c/3": "", ".git/HEAD": "ref: refs/heads/main\n" })
      const watch = new WorkTreeWatch(dir, 3)
      watch.plan("")
      expect(watch.refused).toBe("more than 3 folders")
      expect(watch.mark()).toBeUndefined()
      expect(watch.needsPlan).toBe(false)
      await rm(join(dir, "c"), { recursive: true })
      watch.plan("")
      expect(watch.mark()).toBeUndefined()
    } finally {
      await cleanup(dir)
    }
  })
})
