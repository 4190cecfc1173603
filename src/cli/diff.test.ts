import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runCli } from "./test-helpers/run.js"

const FIXTURES = fileURLToPath(new URL("../../test/fixtures/inspect/", import.meta.url))
const shop = join(FIXTURES, "shop-context.json")
const leaky = join(FIXTURES, "leaky-context.json")

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "pl-diff-"))
  await mkdir(join(dir, "home"))
  await writeFile(join(dir, "AGENTS.md"), "Keep it small.\n")
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})
const diff = (args: string[]) =>
  runCli(["diff", ...args], { cwd: dir, env: { PATH: process.env.PATH, HOME: join(dir, "home") } })

describe("promptline diff", () => {
  it("compares two models on one context: sections with token deltas and line diffs, tools", async () => {
    const r = await diff(["--context", shop, "--model", "claude-sonnet-4-5", "--model", "gpt-5"])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/a: claude-sonnet-4-5 +claude-sonnet-4-5 · variant claude/)
    expect(r.stdout).toMatch(/b: gpt-5 +gpt-5 · variant gpt/)
    expect(r.stdout).toMatch(/total -[\d,]+ tokens/)
    expect(r.stdout).toMatch(/~ editing-files +\d+ → \d+ +[-+]\d+\n {6}@@ /)
    expect(r.stdout).toMatch(/\+ apply_patch +— → \d+ +\+\d+/)
    expect(r.stdout).toMatch(/- replace_in_file +\d+ → — +-\d+/)
    expect(r.stdout).toContain("each side is counted with its own tokenizer (claude, o200k)")
  })

  it("compares two context files: added sections, placement changes", async () => {
    const r = await diff(["--context", shop, "--context", leaky])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/\+ custom-prompt +— → \d+/)
    expect(r.stdout).toContain("(context-message → system)")
    expect(r.stdout).toContain("+ mcp__files__read")
    expect(r.stdout).toContain("- mcp__tracker__get_issue")
  })

  it("--json prints the diff data", async () => {
    const r = await diff(["--context", shop, "--context", shop, "--json"])
    const data = JSON.parse(r.stdout)
    expect(data.samePrefix).toBe(true)
    expect(data.delta.total).toBe(0)
  })

  it("shows unchanged sections; --unchanged names the unchanged tools", async () => {
    const r = await diff(["--context", shop, "--context", shop, "--unchanged"])
    expect(r.stdout).toContain("cached prefix: identical (same hash)")
    expect(r.stdout).toMatch(/= agent-role +\d+ → \d+ +0\n/)
    expect(r.stdout).toMatch(/= 18 unchanged\n {4}execute_command, read_file, /)
    expect((await diff(["--context", shop, "--context", shop])).stdout).not.toContain("execute_command")
  })

  it("gathers the workspace once for two models", async () => {
    const r = await diff(["--cwd", dir, "--no-mcp", "--model", "claude-sonnet-4-5", "--model", "gemini-2.5-pro"])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain("variant gemini")
  })

  it("needs exactly two builds", async () => {
    const r = await diff(["--context", shop])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain("diff compares two builds")
    expect((await diff(["--model", "a", "--model", "b", "--model", "c", "--context", shop])).code).toBe(1)
  })
})
