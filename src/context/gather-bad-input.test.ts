import { mkdir, symlink } from "node:fs/promises"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type GatherResult, gather } from "./gather.js"
import { cleanup, tempDir, writeTree } from "./test-helpers/workspace.js"

let ws: string
let home: string
let result: GatherResult

const entry = (path: string) => result.report.instructions.find((e) => e.path === path)
const diag = (path: string) => result.diagnostics.filter((d) => d.path === path).map((d) => d.code)

beforeAll(async () => {
  ws = await tempDir()
  home = await tempDir("promptline-home-")
  await writeTree(ws, {
    "AGENTS.md": new Uint8Array([0x23, 0x20, 0x41, 0x00, 0x42, 0x0a]),
    "CLAUDE.md": Buffer.concat([Buffer.from("Caf"), Buffer.from([0xe9, 0xff]), Buffer.from(" rules\n")]),
    "GEMINI.md": `${"g".repeat(99)}\n`.repeat(11_000),
    "CLAUDE.local.md": "",
    ".clinerules/1-first.md": "first cline rule\n",
    ".cursor/rules/broken.mdc": "---\nglobs: [unclosed\n  nested: {\n---\nBroken frontmatter body\n",
    ".windsurf/rules/glob.md": "---\ntrigger: glob\n---\nNo globs given\n",
    "pkg/AGENTS.md": "nested and fine\n",
  })
  await symlink(join(ws, ".cursorrules"), join(ws, ".cursorrules-b"))
  await symlink(join(ws, ".cursorrules-b"), join(ws, ".cursorrules"))
  await symlink(join(ws, "nothing-here.md"), join(ws, ".windsurfrules"))
  await symlink(join(ws, ".clinerules"), join(ws, ".clinerules", "again"))
  await symlink(ws, join(ws, "pkg", "up"))
  if (process.platform === "linux") {
    await mkdir(join(ws, ".github"), { recursive: true })
    await symlink("/proc/self/mem", join(ws, ".github", "copilot-instructions.md"))
  }
  result = await gather({ cwd: ws, home, env: {}, trust: true, model: { id: "m", provider: "p" }, date: "2025-01-01" })
})
afterAll(async () => {
  await cleanup(ws)
  await cleanup(home)
})

describe("bad input gives a diagnostic and never a crash", () => {
  it("skips a binary file", () => {
    expect(entry("AGENTS.md")).toMatchObject({ status: "failed", reason: expect.stringContaining("NUL") })
    expect(diag("AGENTS.md")).toEqual(["instruction-binary"])
  })

  it("decodes invalid UTF-8 with replacement characters", () => {
    const file = result.context.instructions.find((f) => f.path === "CLAUDE.md")
    expect(file?.text).toBe("Caf\uFFFD\uFFFD rules")
    expect(diag("CLAUDE.md")).toEqual(["instruction-invalid-utf8"])
  })

  it("caps a file over 1 MiB, then the budget cuts it", () => {
    expect(entry("GEMINI.md")).toMatchObject({
      status: "truncated",
      detail: expect.stringContaining("capped at 1 MiB"),
    })
    expect(diag("GEMINI.md")).toEqual(["instruction-too-large", "instruction-budget"])
  })

  it("skips symbolic link loops and dangling links", () => {
    expect(entry(".cursorrules")).toMatchObject({ status: "failed", reason: "symbolic links form a loop" })
    expect(diag(".cursorrules")).toEqual(["symlink-loop"])
    expect(entry(".windsurfrules")).toMatchObject({ status: "failed" })
    expect(diag(".windsurfrules")).toEqual(["instruction-broken-symlink"])
  })

  it("reads a rules folder once even when a link inside points back to it", () => {
    expect(result.report.instructions.filter((e) => e.path.endsWith("1-first.md")).map((e) => e.path)).toEqual([
      ".clinerules/1-first.md",
    ])
    expect(diag(".clinerules/again")).toEqual(["symlink-loop"])
  })

  it("does not follow a folder link while walking for nested files", () => {
    expect(result.report.instructions.filter((e) => e.path.includes("pkg/")).map((e) => e.path)).toEqual([
      "pkg/AGENTS.md",
    ])
  })

  it.skipIf(process.platform !== "linux")("refuses a link to a device outside the workspace before reading it", () => {
    expect(entry(".github/copilot-instructions.md")).toMatchObject({ status: "skipped" })
    expect(diag(".github/copilot-instructions.md")).toEqual(["link-outside"])
  })

  it("loads a file with broken frontmatter as written, with a warning and its line", () => {
    const file = result.context.instructions.find((f) => f.path === ".cursor/rules/broken.mdc")
    expect(file?.text.startsWith("---\nglobs: [unclosed")).toBe(true)
    expect(file?.activation).toEqual({ when: "manual" })
    expect(result.diagnostics).toContainEqual(
      expect.objectContaining({ code: "instruction-frontmatter", path: ".cursor/rules/broken.mdc", line: 2 }),
    )
  })

  it("warns about a rule whose frontmatter cannot activate it", () => {
    expect(entry(".windsurf/rules/glob.md")).toMatchObject({ status: "manual" })
    expect(diag(".windsurf/rules/glob.md")).toEqual(["instruction-activation"])
  })

  it("skips an empty file", () => {
    expect(entry("CLAUDE.local.md")).toMatchObject({ status: "skipped", reason: "the file has no text" })
  })
})
