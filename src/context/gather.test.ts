import { readdir, symlink } from "node:fs/promises"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type GatherOptions, gather } from "./gather.js"
import { cleanup, monorepo, tempDir, writeTree } from "./test-helpers/workspace.js"

const model = { id: "claude-sonnet-4-5", provider: "anthropic" }
let repo: string
let home: string
const opts = (over: Partial<GatherOptions> = {}): GatherOptions => ({
  cwd: repo,
  home,
  env: {},
  trust: true,
  model,
  date: "2025-06-01",
  ...over,
})

beforeAll(async () => {
  repo = await monorepo()
  home = await tempDir("promptline-home-")
})
afterAll(async () => {
  await cleanup(repo)
  await cleanup(home)
})

describe("gather in a trusted monorepo at its root", () => {
  it("loads every convention general to specific, with a report line for each file", async () => {
    const { context, report } = await gather(opts())
    expect(context.date).toBe("2025-06-01")
    expect(context.git).toEqual({ root: context.cwd, branch: "main", status: "" })
    expect(report.instructions.map((e) => `${e.status} ${e.path}`)).toEqual([
      "loaded AGENTS.md",
      "loaded CLAUDE.md",
      "loaded .claude/CLAUDE.md",
      "loaded CLAUDE.local.md",
      "loaded GEMINI.md",
      "loaded .github/copilot-instructions.md",
      "loaded .cursorrules",
      "loaded .windsurfrules",
      "loaded .clinerules/01-basics.md",
      "loaded .clinerules/2-second.md",
      "loaded .clinerules/10-later.md",
      "conditional .clinerules/api.md",
      "loaded .claude/rules/general.md",
      "conditional .claude/rules/testing.md",
      "loaded .cursor/rules/always.mdc",
      "requested .cursor/rules/db.mdc",
      "manual .cursor/rules/manual.mdc",
      "ignored .cursor/rules/private.mdc",
      "conditional .cursor/rules/react.mdc",
      "loaded .windsurf/rules/always.md",
      "requested .windsurf/rules/decide.md",
      "conditional .windsurf/rules/glob.md",
      "manual .windsurf/rules/manual.md",
      "loaded .github/instructions/all.instructions.md",
      "conditional .github/instructions/ts.instructions.md",
      "nested packages/api/AGENTS.md",
      "nested packages/web/AGENTS.override.md",
      "skipped packages/web/AGENTS.md",
      "nested packages/web/src/CLAUDE.md",
    ])
    const loaded = new Set(context.instructions.map((f) => f.path))
    expect(loaded.has(".cursor/rules/private.mdc")).toBe(false)
    expect(loaded.has("packages/web/AGENTS.md")).toBe(false)
    expect(report.instructions.find((e) => e.path === ".cursor/rules/private.mdc")?.reason).toBe(
      "ignored by .gitignore:3 (`private.mdc`)",
    )
  })

  it("never reads node_modules, gitignored folders or a rules folder's workflows", async () => {
    const { report } = await gather(opts())
    const paths = report.instructions.map((e) => e.path).join("\n")
    expect(paths).not.toMatch(/node_modules|build\/|workflows/)
  })

  it("decides activation from each convention's frontmatter and removes the frontmatter", async () => {
    const { context } = await gather(opts())
    const byPath = Object.fromEntries(context.instructions.map((f) => [f.path, f]))
    expect(byPath[".cursor/rules/react.mdc"]?.activation).toEqual({
      when: "paths",
      globs: ["*.tsx", "src/**/*.{ts,tsx}"],
    })
    expect(byPath[".cursor/rules/db.mdc"]?.activation).toEqual({
      when: "requested",
      description: "Database migrations and schema changes",
    })
    expect(byPath[".windsurf/rules/glob.md"]?.activation).toEqual({ when: "paths", globs: ["**/*.py"] })
    expect(byPath[".github/instructions/all.instructions.md"]?.activation).toEqual({ when: "always" })
    expect(byPath[".clinerules/api.md"]?.activation).toEqual({ when: "paths", globs: ["packages/api/**"] })
    expect(byPath["GEMINI.md"]?.text).toBe("Gemini: keep functions small.")
    expect(byPath["packages/web/src/CLAUDE.md"]).toMatchObject({
      base: "packages/web/src",
      nested: true,
      activation: { when: "paths", globs: ["**"] },
    })
  })

  it("expands CLAUDE.md imports, stops a cycle and skips code", async () => {
    const { context, diagnostics } = await gather(opts())
    const claude = context.instructions.find((f) => f.path === "CLAUDE.md")!
    expect(claude.text).toContain("Conventions: Conventions: see also Style: two-space indent.")
    expect(claude.text).toContain("Cycle check: Cycle A then Cycle B then @cycle-a.md")
    expect(claude.text).toContain("`@docs/inline.md`")
    expect(claude.text).toContain("```\n@docs/in-a-block.md\n```")
    expect(diagnostics).toContainEqual(expect.objectContaining({ code: "import-cycle", path: "docs/cycle-b.md" }))
  })

  it("lists skills: first of a name wins, hidden and invalid ones reported", async () => {
    const { context, report, diagnostics } = await gather(opts())
    expect(context.skills.map((s) => s.name)).toEqual(["deploy", "other-name", "review"])
    expect(report.skills.map((e) => `${e.status} ${e.path}`)).toEqual([
      "loaded .agents/skills/deploy/SKILL.md",
      "skipped .claude/skills/bad/SKILL.md",
      "loaded .claude/skills/mismatch/SKILL.md",
      "skipped .claude/skills/nodesc/SKILL.md",
      "loaded .claude/skills/review/SKILL.md",
      "shadowed .cline/skills/deploy/SKILL.md",
      "hidden .promptline/skills/secret-tool/SKILL.md",
    ])
    const codes = diagnostics.map((d) => d.code)
    expect(codes).toEqual(expect.arrayContaining(["skill-invalid", "skill-name-mismatch", "skill-shadowed"]))
  })

  it("does not depend on the order files were created in", async () => {
    const files: Record<string, string> = {}
    for (const name of ["b.md", "a.md", "10-x.md", "2-y.md", "c/AGENTS.md", "a/AGENTS.md"]) files[name] = `${name}\n`
    const forward = await tempDir()
    const backward = await tempDir()
    try {
      await writeTree(forward, Object.fromEntries(Object.entries(files).map(([k, v]) => [`.clinerules/${k}`, v])))
      await writeTree(forward, { "c/AGENTS.md": "c\n", "a/AGENTS.md": "a\n" })
      await writeTree(backward, { "a/AGENTS.md": "a\n", "c/AGENTS.md": "c\n" })
      const reversed = Object.entries(files).reverse()
      await writeTree(backward, Object.fromEntries(reversed.map(([k, v]) => [`.clinerules/${k}`, v])))
      const one = await gather(opts({ cwd: forward }))
      const two = await gather(opts({ cwd: backward }))
      expect(two.context.instructions).toEqual(one.context.instructions)
      expect(one.context.instructions.map((f) => f.path)).toEqual([
        ".clinerules/2-y.md",
        ".clinerules/10-x.md",
        ".clinerules/a.md",
        ".clinerules/b.md",
        ".clinerules/a/AGENTS.md",
        ".clinerules/c/AGENTS.md",
        "a/AGENTS.md",
        "c/AGENTS.md",
      ])
    } finally {
      await cleanup(forward)
      await cleanup(backward)
    }
  })

  it("gives the same result every time", async () => {
    const a = await gather(opts())
    const b = await gather(opts())
    expect(JSON.stringify(b)).toBe(JSON.stringify(a))
  })
})

describe("gather from a package folder", () => {
  it("loads the folders from the git root down to cwd and names files relative to cwd", async () => {
    const { context, report } = await gather(opts({ cwd: join(repo, "packages/web") }))
    const statuses = report.instructions.map((e) => `${e.status} ${e.path}`)
    expect(statuses.slice(0, 2)).toEqual(["loaded ../../AGENTS.md", "loaded ../../CLAUDE.md"])
    expect(statuses).toContain("loaded AGENTS.override.md")
    expect(statuses).toContain("skipped AGENTS.md")
    expect(statuses).toContain("nested src/CLAUDE.md")
    expect(statuses.some((s) => s.includes("packages/api"))).toBe(false)
    const rule = context.instructions.find((f) => f.path === "../../.clinerules/api.md")
    expect(rule?.base).toBe("../..")
    const always = context.instructions.filter((f) => f.activation.when === "always").map((f) => f.path)
    expect(always.at(-1)).toBe("AGENTS.override.md")
  })

  it("reads only cwd outside a repository", async () => {
    const plain = await monorepo({ git: false })
    try {
      const { context, report } = await gather(opts({ cwd: join(plain, "packages/web") }))
      expect(context.git).toBeUndefined()
      expect(report.instructions.map((e) => `${e.status} ${e.path}`)).toEqual([
        "loaded AGENTS.override.md",
        "skipped AGENTS.md",
        "nested src/CLAUDE.md",
      ])
    } finally {
      await cleanup(plain)
    }
  })
})

describe("an untrusted workspace", () => {
  it("loads no project files and lists each as skipped, but still reads user files", async () => {
    const userHome = await tempDir("promptline-home-")
    await writeTree(userHome, { ".claude/CLAUDE.md": "User preference: be brief.\n" })
    try {
      const { context, report } = await gather(opts({ trust: false, home: userHome }))
      expect(context.instructions.map((f) => f.path)).toEqual(["~/.claude/CLAUDE.md"])
      expect(context.skills).toEqual([])
      const project = report.instructions.filter((e) => e.scope === "project")
      expect(project.length).toBeGreaterThan(20)
      for (const e of project) {
        if (e.path === "packages/web/AGENTS.md") continue
        expect(e).toMatchObject({ status: "skipped", reason: expect.stringContaining("not trusted") })
      }
      expect(report.skills.every((e) => e.status === "skipped")).toBe(true)
    } finally {
      await cleanup(userHome)
    }
  })
})

describe("user-level roots", () => {
  it("reads each root before project files, and each root can be switched off", async () => {
    const userHome = await tempDir("promptline-home-")
    const ws = await tempDir()
    await writeTree(userHome, {
      ".config/promptline/AGENTS.md": "promptline user rules\n",
      ".claude/CLAUDE.md": "claude user memory\n",
      ".claude/rules/ts.md": "---\npaths: ['**/*.ts']\n---\nuser TS rule\n",
      ".codex/AGENTS.md": "codex user rules\n",
      ".gemini/GEMINI.md": "gemini user rules\n",
      "Documents/Cline/Rules/1-a.md": "cline user rule\n",
      "Documents/Cline/Rules/workflows/w.md": "not a rule\n",
    })
    await writeTree(ws, { "AGENTS.md": "project\n" })
    try {
      const all = await gather(opts({ cwd: ws, home: userHome }))
      expect(all.context.instructions.map((f) => `${f.scope} ${f.path}`)).toEqual([
        "user ~/.config/promptline/AGENTS.md",
        "user ~/.claude/CLAUDE.md",
        "user ~/.claude/rules/ts.md",
        "user ~/.codex/AGENTS.md",
        "user ~/.gemini/GEMINI.md",
        "user ~/Documents/Cline/Rules/1-a.md",
        "project AGENTS.md",
      ])
      expect(all.context.instructions[2]).toMatchObject({
        base: ".",
        activation: { when: "paths", globs: ["**/*.ts"] },
      })
      const some = await gather(opts({ cwd: ws, home: userHome, userRoots: ["codex"] }))
      expect(some.context.instructions.map((f) => f.path)).toEqual(["~/.codex/AGENTS.md", "AGENTS.md"])
    } finally {
      await cleanup(userHome)
      await cleanup(ws)
    }
  })
})

describe("one file reached twice", () => {
  it("is read once: a linked AGENTS.md, and a home folder that is also the project", async () => {
    const userHome = await tempDir("promptline-home-")
    await writeTree(userHome, { "CLAUDE.md": "shared rules\n", ".claude/CLAUDE.md": "user memory\n" })
    await symlink(join(userHome, "CLAUDE.md"), join(userHome, "AGENTS.md"))
    try {
      const { context, report } = await gather(opts({ cwd: userHome, home: userHome }))
      expect(context.instructions.map((f) => `${f.path}: ${f.text}`)).toEqual([
        "~/.claude/CLAUDE.md: user memory",
        "AGENTS.md: shared rules",
      ])
      expect(report.instructions.filter((e) => e.status === "skipped").map((e) => `${e.path}: ${e.reason}`)).toEqual([
        "CLAUDE.md: the same file as AGENTS.md, already read",
        ".claude/CLAUDE.md: the same file as ~/.claude/CLAUDE.md, already read",
      ])
    } finally {
      await cleanup(userHome)
    }
  })
})

describe("the instruction budget", () => {
  it("cuts the least specific text first, visibly, and reports it", async () => {
    const userHome = await tempDir("promptline-home-")
    const ws = await tempDir()
    await writeTree(userHome, { ".codex/AGENTS.md": "user line\n".repeat(100) })
    await writeTree(ws, { "AGENTS.md": "project rule\n" })
    try {
      const { context, report, diagnostics } = await gather(opts({ cwd: ws, home: userHome, instructionBudget: 400 }))
      const [user, project] = context.instructions
      expect(project).toMatchObject({ path: "AGENTS.md", text: "project rule" })
      expect(user?.truncated).toBe(true)
      expect(user?.text).toMatch(/\[promptline: this file was cut to fit the instruction budget; \d+ of 999 bytes kept/)
      expect(report.instructions[0]).toMatchObject({ status: "truncated", path: "~/.codex/AGENTS.md" })
      expect(diagnostics).toContainEqual(
        expect.objectContaining({ code: "instruction-budget", path: "~/.codex/AGENTS.md" }),
      )
    } finally {
      await cleanup(userHome)
      await cleanup(ws)
    }
  })
})

describe("options and errors", () => {
  it("throws a typed error for a cwd that does not exist", async () => {
    await expect(gather(opts({ cwd: join(repo, "nope") }))).rejects.toMatchObject({ code: "gather-cwd" })
  })

  it("passes the other context fields through and lets tests fix the platform", async () => {
    const ws = await tempDir()
    try {
      const { context } = await gather(
        opts({ cwd: ws, mode: "plan", features: { browser: true }, platform: { os: "TestOS", shell: "/bin/zsh" } }),
      )
      expect(context).toMatchObject({
        mode: "plan",
        features: { browser: true },
        platform: { os: "TestOS", shell: "/bin/zsh" },
      })
      expect(await readdir(ws)).toEqual([])
    } finally {
      await cleanup(ws)
    }
  })
})
