import { execFileSync } from "node:child_process"
import { rm, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type GatherOptions, gather } from "./gather.js"
import { cleanup, git, tempDir, writeTree } from "./test-helpers/workspace.js"

const PROJECT = fileURLToPath(new URL("../..", import.meta.url))
const GATHER = new URL("./gather.ts", import.meta.url).href

let repo: string
let home: string
const opts = (): GatherOptions => ({
  cwd: repo,
  home,
  env: {},
  trust: true,
  mcp: false,
  date: "2025-06-01",
  model: { id: "m", provider: "p" },
})

/** The same gather in a fresh Node process, where nothing has been read before; its result as JSON. */
function coldGather(options: GatherOptions): string {
  const script = [
    `const { gather } = await import(${JSON.stringify(GATHER)})`,
    `process.stdout.write(JSON.stringify(await gather(${JSON.stringify(options)})))`,
  ].join("\n")
  return execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    cwd: PROJECT,
    encoding: "utf8",
  })
}

beforeAll(async () => {
  repo = await tempDir()
  home = await tempDir("promptline-home-")
  await writeTree(repo, {
    ".gitignore": "dist/\n",
    "AGENTS.md": "rule one\n",
    "CLAUDE.md": "claude rule\n",
    "packages/a/AGENTS.md": "package a\n",
    "packages/b/src/x.ts": "export {}\n",
    "dist/AGENTS.md": "never read\n",
  })
  git(repo, "init", "-q", "-b", "main")
  git(repo, "add", "-A")
  git(repo, "commit", "-q", "-m", "one")
})
afterAll(async () => {
  await cleanup(repo)
  await cleanup(home)
})

describe("a warm gather (same process, files read before)", () => {
  it("equals a cold gather in a fresh process after files change, move and appear", async () => {
    await gather(opts())
    await gather(opts())
    // Same size as before, written right after the reads: only its content tells it apart.
    await writeFile(join(repo, "AGENTS.md"), "rule two\n")
    await rm(join(repo, "CLAUDE.md"))
    await writeFile(join(repo, ".gitignore"), "dist/\npackages/a/\n")
    await writeTree(repo, {
      "CLAUDE.md": "claude rule, longer now\n",
      "packages/c1/GEMINI.md": "gemini\n",
      "packages/c2/.claude/CLAUDE.md": "claude folder\n",
      "packages/c3/CLAUDE.local.md": "personal\n",
      "packages/c4/AGENTS.override.md": "override\n",
      "packages/c5/CLAUDE.md": "claude\n",
      "packages/c6/AGENTS.md": "agents\n",
    })
    const warm = await gather(opts())
    expect(JSON.parse(JSON.stringify(warm))).toEqual(JSON.parse(coldGather(opts())))
    expect(warm.context.instructions.map((f) => f.text)).toContain("rule two")
    expect(warm.report.instructions.map((e) => `${e.status} ${e.path}`)).toEqual([
      "loaded AGENTS.md",
      "loaded CLAUDE.md",
      "nested packages/c1/GEMINI.md",
      "nested packages/c2/.claude/CLAUDE.md",
      "nested packages/c3/CLAUDE.local.md",
      "nested packages/c4/AGENTS.override.md",
      "nested packages/c5/CLAUDE.md",
      "nested packages/c6/AGENTS.md",
    ])
  })
})
