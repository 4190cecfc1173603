// Helpers for tests: real directory trees in temporary folders. Not part of the public API.
import { execFileSync, spawnSync } from "node:child_process"
import { cp, mkdir, mkdtemp, rename, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { allMatchByName } from "../../ignore-rules.js"

/** The folder with the shared context fixtures (test/fixtures/context). */
export const FIXTURES = fileURLToPath(new URL("../../../test/fixtures/context/", import.meta.url))

/** A fresh temporary folder; remove it with `cleanup`. */
export async function tempDir(prefix = "promptline-ctx-"): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix))
}

/** Removes a temporary folder. */
export async function cleanup(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true })
}

/** Writes files (path → text or bytes) under `dir`, creating folders. */
export async function writeTree(dir: string, files: Record<string, string | Uint8Array>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    const full = join(dir, path)
    await mkdir(dirname(full), { recursive: true })
    await writeFile(full, content)
  }
}

/** Runs git in `dir` with a fixed identity and no user config. */
export function git(dir: string, ...args: string[]): string {
  return execFileSync("git", args, {
    cwd: dir,
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_CONFIG_SYSTEM: "/dev/null",
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@example.com",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@example.com",
      GIT_AUTHOR_DATE: "2025-01-01T00:00:00Z",
      GIT_COMMITTER_DATE: "2025-01-01T00:00:00Z",
    },
  })
}

/**
 * Copies the monorepo fixture into a temporary folder, turns `gitignore.txt` into `.gitignore`, adds a large
 * `node_modules` that must never be read, and (unless `git: false`) makes it a repository with one commit.
 */
export async function monorepo(options: { git?: boolean } = {}): Promise<string> {
  const dir = await tempDir()
  await cp(join(FIXTURES, "monorepo"), dir, { recursive: true })
  await rename(join(dir, "gitignore.txt"), join(dir, ".gitignore"))
  await writeTree(dir, { "node_modules/pkg/AGENTS.md": "Must never be read.\n" })
  if (options.git !== false) {
    git(dir, "init", "-q", "-b", "main")
    git(dir, "add", "-A")
    git(dir, "commit", "-q", "-m", "fixture")
  }
  return dir
}

/** The entry script of the `@modelcontextprotocol/server-everything` package (a real MCP server). */
export const EVERYTHING_SERVER = fileURLToPath(
  new URL("../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url),
)

/**
 * The paths (POSIX, relative to `dir`) that git ignores, by themselves or through a folder, asked of
 * `git check-ignore` in the repository at `dir` with no user, system or global-excludes config. Name folders
 * without a trailing slash: git then reads their kind from the disk.
 */
export function ignoredByGit(dir: string, paths: readonly string[]): Set<string> {
  const run = spawnSync("git", ["-c", "core.excludesFile=", "check-ignore", "--no-index", "--stdin", "-z"], {
    cwd: dir,
    input: paths.join("\0"),
    encoding: "utf8",
    env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_SYSTEM: "/dev/null" },
  })
  // 0: some path is ignored, 1: none is.
  if (run.status !== 0 && run.status !== 1) throw new Error(`git check-ignore failed: ${run.stderr}`)
  return new Set(run.stdout.split("\0").filter((p) => p !== ""))
}

/**
 * Whether a tree (path → text, POSIX) holds the one case left to the `ignore` package's way of asking (see
 * decisions.md, "A slash rule with a negation below it"): a .gitignore with a rule holding a slash, and below its
 * folder another .gitignore with a negation that may take back a folder the first one excludes. There the package answers for
 * the folder's entries with its own verdict on the folder; git asks about each entry on its own.
 */
export function slashRuleTakenBack(files: Readonly<Record<string, string>>): boolean {
  const ignores = Object.keys(files).filter((path) => path === ".gitignore" || path.endsWith("/.gitignore"))
  const folder = (path: string) => path.slice(0, -".gitignore".length)
  return ignores.some(
    (outer) =>
      !allMatchByName(files[outer]!) &&
      ignores.some(
        (inner) =>
          inner !== outer &&
          inner.startsWith(folder(outer)) &&
          files[inner]!.split("\n").some((line) => line.startsWith("!")),
      ),
  )
}
