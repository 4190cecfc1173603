import { realpath, symlink } from "node:fs/promises"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { InstructionTracker } from "./activate.js"
import { type GatherOptions, gather } from "./gather.js"
import { cleanup, tempDir, writeTree } from "./test-helpers/workspace.js"

const SECRET = "root:x:0:0:do-not-leak"
let ws: string
let home: string
let outside: string
const opts = (over: Partial<GatherOptions> = {}): GatherOptions => ({
  cwd: ws,
  home,
  env: {},
  trust: true,
  mcp: false,
  model: { id: "claude-sonnet-4-5", provider: "anthropic" },
  date: "2025-06-01",
  ...over,
})

beforeEach(async () => {
  ws = await realpath(await tempDir())
  home = await realpath(await tempDir("promptline-home-"))
  outside = await realpath(await tempDir("promptline-outside-"))
  await writeTree(outside, {
    passwd: `${SECRET}\n`,
    "rule.md": `${SECRET}\n`,
    "SKILL.md": "---\nname: leak\ndescription: leaks\n---\n",
    "mcp.json": '{"mcpServers":{"leak":{"command":"leak-server"}}}',
    "rules/inner.md": `${SECRET}\n`,
  })
})
afterEach(async () => {
  await cleanup(ws)
  await cleanup(home)
  await cleanup(outside)
})

const allText = (result: Awaited<ReturnType<typeof gather>>) =>
  result.context.instructions.map((f) => f.text).join("\n")
const refusals = (result: Awaited<ReturnType<typeof gather>>) =>
  result.diagnostics.filter((d) => d.code === "link-outside")

describe("symbolic links that leave the workspace", () => {
  it("refuses every instruction family, nested files and conditional rules linked outside, and reports them skipped", async () => {
    await writeTree(ws, { "sub/keep.ts": "", ".cursor/rules/ok.mdc": "---\nalwaysApply: true\n---\nStay.\n" })
    const links: [string, string][] = [
      ["AGENTS.md", "passwd"],
      ["CLAUDE.md", "passwd"],
      ["GEMINI.md", "passwd"],
      [".cursorrules", "passwd"],
      [".windsurfrules", "passwd"],
      [".clinerules", "rule.md"],
      [".github/copilot-instructions.md", "passwd"],
      [".cursor/rules/bad.mdc", "rule.md"],
      [".claude/rules", "rules"],
      ["sub/AGENTS.md", "passwd"],
    ]
    for (const [i, [from, to]] of links.entries()) {
      await writeTree(ws, { [`${from}.tmp`]: "" })
      await cleanup(join(ws, `${from}.tmp`))
      // Each link its own target, so none is skipped as a repeat of another.
      const target = to === "rules" ? to : `${i}-${to}`
      if (to !== "rules") await writeTree(outside, { [target]: `${SECRET}\n` })
      await symlink(join(outside, target), join(ws, from))
    }
    const result = await gather(opts())
    expect(allText(result)).not.toContain(SECRET)
    expect(allText(result)).toContain("Stay.")
    const refused = refusals(result)
    expect(refused.map((d) => d.path).sort()).toEqual(
      [
        ".claude/rules/inner.md",
        ".clinerules",
        ".cursor/rules/bad.mdc",
        ".cursorrules",
        ".github/copilot-instructions.md",
        ".windsurfrules",
        "AGENTS.md",
        "CLAUDE.md",
        "GEMINI.md",
        "sub/AGENTS.md",
      ].sort(),
    )
    for (const d of refused) expect(d.level).toBe("warning")
    const agents = refused.find((d) => d.path === "AGENTS.md")
    expect(agents?.message).toContain(join(outside, "0-passwd").split("\\").join("/"))
    const entry = result.report.instructions.find((e) => e.path === "AGENTS.md")
    expect(entry?.status).toBe("skipped")
    expect(entry?.reason).toContain("outside the workspace")
    // Nothing is attached at run time either.
    expect(new InstructionTracker(result.context).instructionsFor("sub/keep.ts")).toEqual([])
  })

  it("keeps links that stay inside the workspace", async () => {
    await writeTree(ws, { "docs/agents.md": "Use pnpm.\n", "sub/keep.ts": "", "shared/nested.md": "Nested rule.\n" })
    await symlink(join(ws, "docs", "agents.md"), join(ws, "AGENTS.md"))
    await symlink(join("..", "shared", "nested.md"), join(ws, "sub", "AGENTS.md"))
    const result = await gather(opts())
    expect(refusals(result)).toEqual([])
    expect(result.report.instructions.find((e) => e.path === "AGENTS.md")?.status).toBe("loaded")
    expect(allText(result)).toContain("Use pnpm.")
    const attached = new InstructionTracker(result.context).instructionsFor("sub/keep.ts")
    expect(attached.map((f) => f.text)).toEqual(["Nested rule."])
  })

  it("refuses a skill and an MCP config linked outside the workspace", async () => {
    await writeTree(ws, { ".agents/skills/leak/.keep": "" })
    await symlink(join(outside, "SKILL.md"), join(ws, ".agents/skills/leak/SKILL.md"))
    await symlink(join(outside, "mcp.json"), join(ws, ".mcp.json"))
    const result = await gather(opts())
    expect(result.context.skills).toEqual([])
    expect(result.report.skills).toEqual([
      expect.objectContaining({ path: ".agents/skills/leak/SKILL.md", status: "skipped" }),
    ])
    expect(result.mcpConfigs).toEqual([])
    expect(result.report.mcpServers).toEqual([])
    expect(
      refusals(result)
        .map((d) => d.path)
        .sort(),
    ).toEqual([".agents/skills/leak/SKILL.md", ".mcp.json"])
  })

  it("a user file may link inside the user's config folders, not out of them", async () => {
    await writeTree(home, { ".claude/shared.md": "Mine.\n" })
    await symlink(join(home, ".claude", "shared.md"), join(home, ".claude", "CLAUDE.md"))
    await writeTree(home, { ".gemini/.keep": "" })
    await symlink(join(outside, "passwd"), join(home, ".gemini", "GEMINI.md"))
    const result = await gather(opts())
    expect(allText(result)).toContain("Mine.")
    expect(allText(result)).not.toContain(SECRET)
    expect(refusals(result)).toEqual([expect.objectContaining({ level: "warning", path: "~/.gemini/GEMINI.md" })])
    expect(refusals(result)[0]?.message).toContain("outside the user's config folders")
  })

  it("a user config folder that is itself a link (a dotfiles checkout) keeps working", async () => {
    await writeTree(outside, { "dotclaude/CLAUDE.md": "From dotfiles.\n" })
    await symlink(join(outside, "dotclaude"), join(home, ".claude"))
    const result = await gather(opts())
    expect(refusals(result)).toEqual([])
    expect(allText(result)).toContain("From dotfiles.")
  })

  it("does not read a .gitignore linked outside the workspace (git does not either)", async () => {
    await writeTree(outside, { "ignore-all": "AGENTS.md\n" })
    await writeTree(ws, { "AGENTS.md": "Use pnpm.\n" })
    await symlink(join(outside, "ignore-all"), join(ws, ".gitignore"))
    const result = await gather(opts())
    expect(result.report.instructions.find((e) => e.path === "AGENTS.md")?.status).toBe("loaded")
  })
})
