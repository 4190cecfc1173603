import { execFileSync } from "node:child_process"
import { access, appendFile, chmod, mkdir, readFile, rm, utimes, writeFile } from "node:fs/promises"
import { join } from "node:path"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { findRepositoryRoot, MAX_GIT_STATUS, readGit, summarizeStatus } from "./git.js"
import { processesRunning } from "./mcp/test-helpers.js"
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

  it("names the branch of a repository without commits, and a branch a tag of the same name shadows", async () => {
    const dir = await tempDir()
    try {
      git(dir, "init", "-q", "-b", "fresh")
      await writeFile(join(dir, "a.txt"), "a")
      expect((await readGit(dir)).git).toMatchObject({ branch: "fresh", status: "?? a.txt" })
      git(dir, "add", "a.txt")
      git(dir, "commit", "-q", "-m", "one")
      git(dir, "tag", "fresh")
      expect((await readGit(dir)).git).toMatchObject({ branch: "fresh", status: "" })
    } finally {
      await cleanup(dir)
    }
  })

  it("gives nothing inside the .git folder, where there is no work tree", async () => {
    const dir = await tempDir()
    try {
      git(dir, "init", "-q", "-b", "main")
      expect(await readGit(join(dir, ".git"))).toEqual({ diagnostics: [] })
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

/** A shell command that leaves `marker` behind when something runs it, then copies stdin to stdout. */
const leaves = (marker: string) => `sh -c 'touch "${marker}"; cat'`
const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  )

/** A repository with one committed file (and `.gitattributes`), the file's timestamps changed since. */
async function repoWithStaleStat(dir: string, attributes: string): Promise<void> {
  await writeTree(dir, { "a.txt": "a\n", ".gitattributes": attributes })
  git(dir, "init", "-q", "-b", "main")
  git(dir, "add", "-A")
  git(dir, "commit", "-q", "-m", "one")
  // Same content, new timestamps: git must look at the content again, which is when filters run.
  await utimes(join(dir, "a.txt"), 1_000_000_000, 1_000_000_000)
}

describe.skipIf(process.platform === "win32")("readGit on a repository that names programs in its config", () => {
  it("does not run the file system monitor named by core.fsmonitor", async () => {
    const dir = await tempDir()
    try {
      const marker = join(dir, "monitor-ran")
      await repoWithStaleStat(dir, "")
      await writeFile(join(dir, "monitor.sh"), `#!/bin/sh\ntouch "${marker}"\n`)
      await chmod(join(dir, "monitor.sh"), 0o755)
      git(dir, "config", "core.fsmonitor", join(dir, "monitor.sh"))
      const { git: facts, diagnostics } = await readGit(dir)
      expect(await exists(marker)).toBe(false)
      expect(facts).toMatchObject({ branch: "main", status: "?? monitor.sh" })
      expect(diagnostics).toEqual([])
    } finally {
      await cleanup(dir)
    }
  })

  it("does not run the repository's own clean or process filters, even a required one", async () => {
    const dir = await tempDir()
    try {
      await repoWithStaleStat(dir, "* filter=evil\n")
      git(dir, "config", "filter.evil.clean", leaves(join(dir, "clean-ran")))
      git(dir, "config", "filter.evil.process", leaves(join(dir, "process-ran")))
      git(dir, "config", "filter.evil.required", "true")
      const { git: facts, diagnostics } = await readGit(dir)
      expect(await exists(join(dir, "clean-ran"))).toBe(false)
      expect(await exists(join(dir, "process-ran"))).toBe(false)
      expect(facts?.status).toBe("")
      expect(diagnostics).toEqual([])
    } finally {
      await cleanup(dir)
    }
  })

  it("does not run a filter whose section is spelled in capitals, written into the config by hand", async () => {
    const dir = await tempDir()
    try {
      await repoWithStaleStat(dir, "* filter=evil\n")
      // Section names are matched without case: `[FILTER "evil"]` defines the filter `evil`.
      const clean = `sh -c 'touch ${join(dir, "clean-ran")}; cat'`
      await appendFile(join(dir, ".git", "config"), `[FILTER "evil"]\n\tclean = "${clean}"\n`)
      const { git: facts, diagnostics } = await readGit(dir)
      expect(await exists(join(dir, "clean-ran"))).toBe(false)
      expect(facts).toMatchObject({ branch: "main", status: "" })
      expect(diagnostics).toEqual([])
    } finally {
      await cleanup(dir)
    }
  })

  it("asks again after a branch switch, and after a filter is added to the config of a repository read before", async () => {
    const dir = await tempDir()
    try {
      await repoWithStaleStat(dir, "* filter=evil\n")
      // Read twice: the second read answers the root and branch from what the first one learned.
      expect((await readGit(dir)).git).toMatchObject({ branch: "main", status: "" })
      expect((await readGit(dir)).git).toMatchObject({ branch: "main", status: "" })
      git(dir, "checkout", "-q", "-b", "topic")
      expect((await readGit(dir)).git?.branch).toBe("topic")
      git(dir, "config", "filter.evil.clean", leaves(join(dir, "clean-ran")))
      await utimes(join(dir, "a.txt"), 1_000_000_001, 1_000_000_001)
      const { git: facts, diagnostics } = await readGit(dir)
      expect(await exists(join(dir, "clean-ran"))).toBe(false)
      expect(facts).toMatchObject({ branch: "topic", status: "" })
      expect(diagnostics).toEqual([])
    } finally {
      await cleanup(dir)
    }
  })

  it("does not run git inside a submodule, whose config has filters of its own", async () => {
    const dir = await tempDir()
    try {
      const sub = join(dir, "sub")
      const top = join(dir, "top")
      await repoWithStaleStat(sub, "* filter=other\n")
      await mkdir(top)
      git(top, "init", "-q", "-b", "main")
      git(top, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "sub")
      git(top, "commit", "-q", "-m", "with a submodule")
      git(join(top, "sub"), "config", "filter.other.clean", leaves(join(dir, "sub-clean-ran")))
      await utimes(join(top, "sub", "a.txt"), 1_000_000_000, 1_000_000_000)
      const { git: facts } = await readGit(top)
      expect(await exists(join(dir, "sub-clean-ran"))).toBe(false)
      expect(facts?.status).toBe("")
    } finally {
      await cleanup(dir)
    }
  })

  it("skips the status, with a warning, when a filter's name cannot be switched off", async () => {
    const dir = await tempDir()
    try {
      await repoWithStaleStat(dir, "* filter=a=b\n")
      git(dir, "config", "filter.a=b.clean", leaves(join(dir, "clean-ran")))
      const { git: facts, diagnostics } = await readGit(dir)
      expect(await exists(join(dir, "clean-ran"))).toBe(false)
      expect(facts).toEqual({ root: expect.any(String), branch: "main", status: "" })
      expect(diagnostics.map((d) => d.code)).toEqual(["git-status-skipped"])
    } finally {
      await cleanup(dir)
    }
  })
})

describe.skipIf(process.platform === "win32")("readGit with a git that does not answer", () => {
  it("stops it after the timeout and reports it as a warning", async () => {
    const dir = await tempDir()
    try {
      git(dir, "init", "-q")
      // Reading a named pipe nobody writes to blocks: every git command here hangs.
      await rm(join(dir, ".git", "HEAD"))
      execFileSync("mkfifo", [join(dir, ".git", "HEAD")])
      const result = await readGit(dir, { timeoutMs: 300 })
      expect(result.git).toBeUndefined()
      expect(result.diagnostics).toEqual([
        expect.objectContaining({ level: "warning", code: "git-timeout", message: expect.stringContaining("300 ms") }),
      ])
    } finally {
      await cleanup(dir)
    }
  })
})

/**
 * Runs `body` in a temporary folder holding `files` (a `.git` among them, or no git is started at all), with a
 * stand-in `git` first on PATH: the shell script `script` gives, for that folder.
 */
async function withStandInGit(
  script: (dir: string) => string,
  files: Record<string, string>,
  body: (dir: string) => Promise<void>,
): Promise<void> {
  const dir = await tempDir()
  const path = process.env.PATH
  try {
    await writeTree(dir, { ...files, "bin/git": script(dir) })
    await chmod(join(dir, "bin", "git"), 0o755)
    process.env.PATH = `${join(dir, "bin")}:${path}`
    await body(dir)
  } finally {
    process.env.PATH = path
    await cleanup(dir)
  }
}

describe.runIf(process.platform === "linux")("readGit with a git that leaves processes behind", () => {
  it("stops every process the git started at the timeout, a setsid one too", async () => {
    const sleeps = ["sleep 361", "sleep 362", "sleep 363"]
    // It starts a background and a setsid child, then hangs.
    const script = () => "#!/bin/sh\nsleep 361 &\nsetsid sleep 362 &\nsleep 363\n"
    await withStandInGit(script, { ".git/HEAD": "" }, async (dir) => {
      try {
        const result = await readGit(dir, { timeoutMs: 300 })
        expect(result.diagnostics.map((d) => d.code)).toEqual(["git-timeout"])
        for (const sleep of sleeps) expect(processesRunning(sleep)).toEqual([])
      } finally {
        for (const sleep of sleeps) for (const pid of processesRunning(sleep)) process.kill(pid, "SIGKILL")
      }
    })
  })
})

describe.runIf(process.platform === "linux")("readGit outside any repository", () => {
  it("starts no git at all when no folder above has a .git", async () => {
    const script = (dir: string) => `#!/bin/sh\ntouch "${join(dir, "git-ran")}"\n`
    await withStandInGit(script, {}, async (dir) => {
      const marker = join(dir, "git-ran")
      expect(await readGit(dir)).toEqual({ diagnostics: [] })
      expect(await exists(marker)).toBe(false)
      // The same folder with a `.git` (here an empty one) is asked. A script written a moment ago can fail
      // to start once (ETXTBSY while another thread forks), so the control is given three tries.
      await writeTree(dir, { ".git/HEAD": "" })
      for (let i = 0; i < 3 && !(await exists(marker)); i++) await readGit(dir)
      expect(await exists(marker)).toBe(true)
    })
  })
})

describe.runIf(process.platform === "linux")("readGit leaves no git running", () => {
  it("waits for the status it started when rev-parse then says there is no work tree", async () => {
    // A git that answers nothing, slowly, and logs each question when it ends.
    const script = (dir: string) => `#!/bin/sh\nsleep 0.2\necho "$*" >> "${join(dir, "asked")}"\n`
    await withStandInGit(script, { ".git/HEAD": "" }, async (dir) => {
      const log = join(dir, "asked")
      // A script written a moment ago can fail to start once (ETXTBSY while another thread forks): run it
      // until it starts, then forget that run.
      for (let i = 0; i < 5; i++) {
        try {
          execFileSync(join(dir, "bin", "git"), ["warm-up"])
          break
        } catch {}
      }
      await rm(log, { force: true })
      expect(await readGit(dir)).toEqual({ diagnostics: [] })
      const asked = await readFile(log, "utf8")
      expect(asked).toContain("rev-parse")
      expect(asked).toContain(" status ")
    })
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
