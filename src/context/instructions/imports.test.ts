import { mkdir, realpath, symlink } from "node:fs/promises"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { cleanup, tempDir, writeTree } from "../test-helpers/workspace.js"
import { codeRanges, insideRanges } from "./code-spans.js"
import { expandImports, type ImportScope } from "./imports.js"

let ws: string
let home: string
let outside: string
let scope: ImportScope
beforeEach(async () => {
  ws = await realpath(await tempDir())
  home = await realpath(await tempDir())
  outside = await realpath(await tempDir())
  scope = { home, workspace: ws, display: (abs) => abs.replace(`${ws}/`, "").replace(home, "~") }
})
afterEach(async () => {
  for (const d of [ws, home, outside]) await cleanup(d)
})

/** Expands `text` as if it were the project file `file` of the workspace. */
const expand = (file: string, text: string, s: ImportScope = scope) => expandImports(text, join(ws, file), s, "project")

describe("expandImports", () => {
  it("replaces relative imports with the files' text, recursively, frontmatter removed", async () => {
    await writeTree(ws, {
      "docs/a.md": "A says @b.md",
      "docs/b.md": "---\nx: 1\n---\nB text\n",
    })
    const r = await expand("CLAUDE.md", "Start @docs/a.md.")
    expect(r.text).toBe("Start A says B text.")
    expect(r.imported).toEqual([join(ws, "docs/a.md"), join(ws, "docs/b.md")])
    expect(r.diagnostics).toEqual([])
  })

  it("lets a user file import from home and the workspace", async () => {
    await writeTree(ws, { "docs/b.md": "B text" })
    await writeTree(home, { "notes.md": "home notes @more.md", "more.md": "and more" })
    const r = await expandImports(`@~/notes.md, @${ws}/docs/b.md`, join(home, "CLAUDE.md"), scope, "user")
    expect(r.text).toBe("home notes and more, B text")
    expect(r.diagnostics).toEqual([])
  })

  it("lets a project file, and a workspace file a user file imports, import nothing from home", async () => {
    await writeTree(ws, { "docs/b.md": "B @~/notes.md" })
    await writeTree(home, { "notes.md": "home notes" })
    const project = await expand("CLAUDE.md", "x\n@~/notes.md")
    expect(project.text).toBe("x\n@~/notes.md")
    expect(project.diagnostics).toEqual([
      {
        level: "warning",
        code: "import-outside",
        message:
          "`@~/notes.md` not imported: ~/notes.md lies outside the workspace, and a project file imports only from it",
        path: "CLAUDE.md",
        line: 2,
      },
    ])
    const user = await expandImports(`@${ws}/docs/b.md`, join(home, "CLAUDE.md"), scope, "user")
    expect(user.text).toBe("B @~/notes.md")
    expect(user.diagnostics).toEqual([expect.objectContaining({ code: "import-outside", path: "docs/b.md" })])
  })

  it("ignores imports inside code spans and fenced blocks, and e-mail addresses", async () => {
    await writeTree(ws, { "x.md": "X" })
    const text = "Use `@x.md` and ``a `@x.md` b``\n```md\n@x.md\n```\n~~~\n@x.md\n~~~\nmail me@x.md; real @x.md"
    const r = await expand("CLAUDE.md", text)
    expect(r.text).toBe(text.replace("real @x.md", "real X"))
    expect(r.imported).toHaveLength(1)
  })

  it("detects a cycle and leaves the repeated import as text", async () => {
    await writeTree(ws, { "a.md": "A @b.md", "b.md": "B @a.md" })
    const r = await expand("a.md", "A @b.md")
    expect(r.text).toBe("A B @a.md")
    expect(r.diagnostics).toEqual([
      expect.objectContaining({ level: "warning", code: "import-cycle", path: "b.md", line: 1 }),
    ])
  })

  it("follows at most five hops", async () => {
    const files: Record<string, string> = {}
    for (let i = 1; i <= 7; i++) files[`f${i}.md`] = `${i} @f${i + 1}.md`
    files["f8.md"] = "end"
    await writeTree(ws, files)
    const r = await expand("f0.md", "0 @f1.md")
    expect(r.text).toBe("0 1 2 3 4 5 @f6.md")
    expect(r.diagnostics).toEqual([expect.objectContaining({ code: "import-too-deep", path: "f5.md" })])
  })

  it("refuses files outside the workspace and home unless allowed", async () => {
    await writeTree(outside, { "x.md": "outside text" })
    await symlink(join(outside, "x.md"), join(ws, "link.md"))
    const text = `@${join(outside, "x.md")} and @link.md`
    const refused = await expand("CLAUDE.md", text)
    expect(refused.text).toBe(text)
    expect(refused.diagnostics.map((d) => d.code)).toEqual(["import-outside", "import-outside"])
    const allowed = await expand("CLAUDE.md", text, { ...scope, allowOutside: true })
    expect(allowed.text).toBe("outside text and outside text")
  })

  it("leaves names of missing files as text with an info diagnostic", async () => {
    const r = await expand("CLAUDE.md", "Install @scope/pkg.\n\nSee @missing.md")
    expect(r.text).toBe("Install @scope/pkg.\n\nSee @missing.md")
    expect(r.diagnostics).toEqual([
      expect.objectContaining({ level: "info", code: "import-not-found", line: 1 }),
      expect.objectContaining({ level: "info", code: "import-not-found", line: 3 }),
    ])
  })

  it("reports an imported binary file and keeps the token", async () => {
    await mkdir(join(ws, "d"))
    await writeTree(ws, { "d/bin.md": new Uint8Array([0, 1, 2]) })
    const r = await expand("CLAUDE.md", "x @d/bin.md")
    expect(r.text).toBe("x @d/bin.md")
    expect(r.diagnostics).toEqual([expect.objectContaining({ code: "import-unreadable" })])
  })
})

describe("codeRanges", () => {
  it("finds fenced blocks (including an unclosed one) and inline spans", () => {
    const text = "a `b` c\n```\ncode\n```\nd ``e`` f\n~~~\nopen"
    const ranges = codeRanges(text)
    expect(ranges.map(([s, e]) => text.slice(s, e))).toEqual(["`b`", "```\ncode\n```", "``e``", "~~~\nopen"])
    expect(insideRanges(ranges, text.indexOf("c"))).toBe(false)
  })
})
