import { mkdir } from "node:fs/promises"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runCli } from "../cli/test-helpers/run.js"
import { PromptBuilder } from "../prompt/builder.js"
import { gather } from "./gather.js"
import { cleanup, git, tempDir, writeTree } from "./test-helpers/workspace.js"

/**
 * The library and the command line share one default: a workspace's project files are read, its own MCP servers
 * (commands it chose) are not started unless trusted; what is left out says how to enable it.
 */

let repo: string
let home: string
const model = { id: "claude-sonnet-5-5", provider: "anthropic" }

beforeAll(async () => {
  repo = await tempDir("pl-trust-default-")
  home = await tempDir("pl-trust-home-")
  await mkdir(join(repo, ".git"))
  git(repo, "init", "-q")
  await writeTree(repo, {
    "AGENTS.md": "Run npm test before you finish.\n",
    "CLAUDE.md": "Prefer small commits.\n",
    ".cursor/rules/style.mdc": "---\nalwaysApply: true\n---\nUse tabs.\n",
    ".claude/rules/api.md": "Keep the API narrow.\n",
    ".claude/skills/release/SKILL.md": "---\nname: release\ndescription: Cut a release.\n---\n1. Bump the version.\n",
    ".mcp.json": JSON.stringify({ mcpServers: { shop: { command: "node", args: ["-e", "process.exit(1)"] } } }),
  })
})
afterAll(async () => {
  await cleanup(repo)
  await cleanup(home)
})

const paths = (files: { path: string; scope: string }[]) =>
  files.filter((f) => f.scope === "project").map((f) => f.path)

describe("the shared trust default", () => {
  it("the README's first example (gather, then build) reads the project's instructions and skill", async () => {
    const { context, diagnostics } = await gather({ cwd: repo, home, env: {}, model })
    const prompt = new PromptBuilder().build(context)
    expect(paths(context.instructions)).toEqual([
      "AGENTS.md",
      "CLAUDE.md",
      ".claude/rules/api.md",
      ".cursor/rules/style.mdc",
    ])
    expect(context.skills.map((s) => s.name)).toEqual(["release"])
    expect(prompt.contextMessage).toContain("Run npm test before you finish.")
    // The project's MCP server is listed, not started, and the warning says how to start it.
    expect(context.mcpServers).toEqual([])
    expect(diagnostics).toContainEqual({
      level: "warning",
      code: "mcp-untrusted",
      message:
        "1 project MCP server (shop) not started: a project's MCP servers are commands it chose, started only in a trusted workspace; pass `trust: true` (or `trustMcp: true`) to gather() to start them",
    })
  })

  it("trust: false reads no project file, and one diagnostic names them and how to read them", async () => {
    const { context, diagnostics } = await gather({ cwd: repo, home, env: {}, model, trust: false })
    expect(paths(context.instructions)).toEqual([])
    expect(context.skills).toEqual([])
    const skipped = diagnostics.find((d) => d.code === "project-untrusted")
    expect(skipped?.level).toBe("info")
    expect(skipped?.message).toMatch(
      /^5 project files not read \(AGENTS\.md, CLAUDE\.md, .* and 1 more\): the workspace is not trusted; leave `trust` out/,
    )
  })

  it("the command line gives the same files by default, and says how to enable what it leaves out", async () => {
    const env = { PATH: process.env.PATH, SHELL: "/bin/sh", HOME: home }
    const cli = await runCli(["context", "--cwd", repo, "--model", model.id, "--json"], { env })
    expect(cli.code).toBe(0)
    const context = JSON.parse(cli.stdout) as {
      instructions: { path: string; scope: string }[]
      skills: { name: string }[]
    }
    const library = await gather({ cwd: repo, home, env: {}, model })
    expect(paths(context.instructions)).toEqual(paths(library.context.instructions))
    expect(context.skills.map((s) => s.name)).toEqual(library.context.skills.map((s) => s.name))
    expect(cli.stderr).toMatch(/^warning 1 project MCP server \(shop\) not started: .*pass --trust/m)
    expect(cli.stderr).not.toContain("gather()")
    const off = await runCli(["doctor", "--cwd", repo, "--no-trust", "--json"], { env })
    expect(off.code).toBe(0)
    expect(JSON.stringify(JSON.parse(off.stdout))).toContain("--no-trust was given; leave it out to read them")
  })
})
