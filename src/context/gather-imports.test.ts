import { realpath } from "node:fs/promises"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { type GatherOptions, gather } from "./gather.js"
import { cleanup, tempDir, writeTree } from "./test-helpers/workspace.js"

const SECRET = "aws_secret_access_key = do-not-leak"
let ws: string
let home: string
const opts = (over: Partial<GatherOptions> = {}): GatherOptions => ({
  cwd: ws,
  home,
  env: {},
  trust: true,
  model: { id: "claude-sonnet-4-5", provider: "anthropic" },
  date: "2025-06-01",
  ...over,
})

beforeEach(async () => {
  ws = await realpath(await tempDir())
  home = await realpath(await tempDir("promptline-home-"))
  await writeTree(home, { ".aws/credentials": `[default]\n${SECRET}\n`, "notes.md": "my own notes" })
})
afterEach(async () => {
  await cleanup(ws)
  await cleanup(home)
})

const text = (result: Awaited<ReturnType<typeof gather>>) => result.context.instructions.map((f) => f.text).join("\n")

describe("`@path` imports by scope", () => {
  it("a project file imports nothing from home: the refusal names the file, the line and the path", async () => {
    await writeTree(ws, { "CLAUDE.md": "# Project\n\nSetup: @~/.aws/credentials\n", "GEMINI.md": "@~/notes.md\n" })
    const result = await gather(opts())
    expect(text(result)).not.toContain(SECRET)
    expect(text(result)).not.toContain("my own notes")
    expect(result.context.instructions.find((f) => f.path === "CLAUDE.md")?.text).toBe(
      "# Project\n\nSetup: @~/.aws/credentials",
    )
    const refused = result.diagnostics.filter((d) => d.code === "import-outside")
    expect(refused).toEqual([
      expect.objectContaining({ level: "warning", path: "CLAUDE.md", line: 3 }),
      expect.objectContaining({ level: "warning", path: "GEMINI.md", line: 1 }),
    ])
    expect(refused[0]?.message).toContain("~/.aws/credentials lies outside the workspace")
  })

  it("a file of the workspace imported by a user file still imports nothing from home", async () => {
    await writeTree(ws, { "docs/setup.md": "Setup: @~/.aws/credentials" })
    await writeTree(home, { ".claude/CLAUDE.md": `Mine: @~/notes.md\nProject: @${ws}/docs/setup.md\n` })
    const result = await gather(opts())
    const user = result.context.instructions.find((f) => f.path === "~/.claude/CLAUDE.md")
    expect(user?.text).toBe("Mine: my own notes\nProject: Setup: @~/.aws/credentials")
    expect(result.diagnostics).toContainEqual(
      expect.objectContaining({ code: "import-outside", path: "docs/setup.md", line: 1 }),
    )
  })

  it("a user file imports from home and the workspace", async () => {
    await writeTree(ws, { "docs/style.md": "two-space indent" })
    await writeTree(home, { ".claude/CLAUDE.md": `@~/notes.md and @${ws}/docs/style.md\n` })
    const result = await gather(opts())
    expect(result.context.instructions.find((f) => f.path === "~/.claude/CLAUDE.md")?.text).toBe(
      "my own notes and two-space indent",
    )
    expect(result.diagnostics.filter((d) => d.code.startsWith("import-"))).toEqual([])
  })

  it("allowImportsOutside lets a project file import from anywhere", async () => {
    await writeTree(ws, { "CLAUDE.md": "@~/notes.md\n" })
    const result = await gather(opts({ allowImportsOutside: true }))
    expect(result.context.instructions.find((f) => f.path === "CLAUDE.md")?.text).toBe("my own notes")
  })
})

describe("`@path` imports of text the prompt already has", () => {
  const count = (haystack: string, needle: string) => haystack.split(needle).length - 1

  it("CLAUDE.md importing @AGENTS.md next to AGENTS.md gives its text once, with a note naming both", async () => {
    await writeTree(ws, {
      "AGENTS.md": "Run the tests with make check.\n",
      "CLAUDE.md": "@AGENTS.md\n\nClaude only.\n",
    })
    const result = await gather(opts())
    expect(count(text(result), "Run the tests with make check.")).toBe(1)
    expect(result.context.instructions.map((f) => [f.path, f.text])).toEqual([
      ["AGENTS.md", "Run the tests with make check."],
      ["CLAUDE.md", "@AGENTS.md\n\nClaude only."],
    ])
    expect(result.diagnostics.filter((d) => d.code === "import-repeated")).toEqual([
      {
        level: "info",
        code: "import-repeated",
        message: "`@AGENTS.md` not imported: AGENTS.md is in the prompt already, so its text is not given twice",
        path: "CLAUDE.md",
        line: 1,
      },
    ])
  })

  it("a file two memory files import is given by the first only, and a linked or imported-through copy too", async () => {
    await writeTree(ws, {
      "docs/rules.md": "Never push to main.",
      "docs/more.md": "See @rules.md",
      "CLAUDE.md": "@docs/rules.md",
      "GEMINI.md": "@docs/more.md",
    })
    const result = await gather(opts())
    expect(count(text(result), "Never push to main.")).toBe(1)
    expect(result.context.instructions.find((f) => f.path === "GEMINI.md")?.text).toBe("See @rules.md")
    expect(result.diagnostics).toContainEqual(
      expect.objectContaining({
        code: "import-repeated",
        path: "docs/more.md",
        message: "`@rules.md` not imported: CLAUDE.md imports it already, so its text is not given twice",
      }),
    )
  })

  it("still inlines a file whose own entry is not always in the prompt (a rule with globs)", async () => {
    await writeTree(ws, {
      ".claude/rules/tests.md": "---\npaths: ['**/*.test.ts']\n---\nName tests after behaviour.\n",
      "CLAUDE.md": "@.claude/rules/tests.md",
    })
    const result = await gather(opts())
    expect(result.context.instructions.find((f) => f.path === "CLAUDE.md")?.text).toBe("Name tests after behaviour.")
    expect(result.diagnostics.filter((d) => d.code === "import-repeated")).toEqual([])
  })

  it("two files importing each other each keep their own text once", async () => {
    await writeTree(ws, { "AGENTS.md": "A text. @CLAUDE.md", "CLAUDE.md": "C text. @AGENTS.md" })
    const result = await gather(opts())
    expect(count(text(result), "A text.")).toBe(1)
    expect(count(text(result), "C text.")).toBe(1)
  })
})
