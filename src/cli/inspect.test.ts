import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { promptlineCacheDir } from "../context/user-roots.js"
import { lastRunFile } from "../inspect/last-run.js"
import { runCli } from "./test-helpers/run.js"

const FIXTURES = fileURLToPath(new URL("../../test/fixtures/inspect/", import.meta.url))
const shop = join(FIXTURES, "shop-context.json")
const leaky = join(FIXTURES, "leaky-context.json")

let dir: string
let project: string
let home: string

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "pl-inspect-"))
  project = join(dir, "project")
  home = join(dir, "home")
  await mkdir(home, { recursive: true })
  await mkdir(join(project, ".cursor", "rules"), { recursive: true })
  await writeFile(join(project, "AGENTS.md"), "Run the linter before you finish.\n")
  await writeFile(join(project, ".cursor", "rules", "broken.mdc"), "---\nalwaysApply: maybe\n---\nText.\n")
})

afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

const env = () => ({ PATH: process.env.PATH, SHELL: "/bin/bash", HOME: home })
const inspect = (args: string[], cwd = dir, columns?: number) =>
  runCli(["inspect", ...args], { cwd, env: { ...env(), NO_COLOR: "1" }, ...(columns ? { columns } : {}) })
const widest = (text: string) => Math.max(...text.split("\n").map((l) => [...l].length))

/** A conversation in the history file format with every kind of block. */
const conversation = [
  { id: "m1", role: "user", ts: 1, content: [{ type: "text", text: "Why does the build fail?" }] },
  {
    id: "m2",
    role: "assistant",
    ts: 2,
    content: [
      { type: "thinking", text: "Look at the compiler output first." },
      { type: "text", text: "Running the build." },
      { type: "tool_use", id: "t1", name: "execute_command", input: { command: "npm run build" } },
    ],
  },
  {
    id: "m3",
    role: "user",
    ts: 3,
    content: [{ type: "tool_result", toolUseId: "t1", content: "error TS2322 in a.ts" }],
  },
]

describe("promptline inspect", () => {
  it("reports a context file: figures, sections, tools, no gather report, cache layout, no color", async () => {
    const r = await inspect(["--context", shop, "--no-last-run"])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^promptline inspect: claude-sonnet-4-5\n/)
    expect(r.stdout).toMatch(/Prompt: [\d,]+ tokens, \d+\.\d% of the 200,000-token window/)
    expect(r.stdout).toContain("No gather report")
    expect(r.stdout).toContain("Cache layout")
    // The context's model, Claude Sonnet 4.5, is deprecated on its date: the one warning names its successor.
    expect(r.stdout).toContain("Warnings (1)")
    expect(r.stdout).toMatch(
      /deprecated since 2026-09-30 and\s+retires\s+on\s+2026-11-30[\s\S]*claude-sonnet-5-5[\s\S]*\[model-deprecated\]/,
    )
    expect(r.stdout).not.toContain("\u001b[")
    expect(Math.max(...r.stdout.split("\n").map((l) => [...l].length))).toBeLessThanOrEqual(100)
  })

  it("gathers a workspace and lists its instruction files with their status", async () => {
    const r = await inspect(["--cwd", project, "--no-mcp", "--no-last-run"])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/Instruction files \(\d+ considered\)/)
    expect(r.stdout).toMatch(/loaded +AGENTS\.md +agents-md · \d+ tokens/)
    expect(r.stdout).not.toContain("No gather report")
    const untrusted = await inspect(["--cwd", project, "--no-mcp", "--no-trust", "--no-last-run"])
    expect(untrusted.stdout).toMatch(/skipped +AGENTS\.md/)
  })

  it("--json prints the report data", async () => {
    const r = await inspect(["--context", shop, "--json", "--no-last-run"])
    const report = JSON.parse(r.stdout)
    expect(report.version).toBe(1)
    expect(report.model.id).toBe("claude-sonnet-4-5")
    expect(report.segments.reduce((n: number, s: { share: number }) => n + s.share, 0)).toBeCloseTo(1, 9)
    expect(report.tools.length).toBeGreaterThan(10)
  })

  it("warns about volatile values in the cached prefix of a leaky context", async () => {
    const r = await inspect(["--context", leaky, "--json", "--no-last-run"])
    const messages: string[] = JSON.parse(r.stdout).warnings.map((w: { message: string }) => w.message)
    expect(messages).toEqual([
      expect.stringMatching(
        /^stable section custom-prompt holds the working directory "\/home\/dev\/shop", the date "2026-11-29" and the time "09:15"/,
      ),
      expect.stringMatching(/^section system-info holds/),
      expect.stringMatching(/^the definition of tool mcp__files__read holds the working directory/),
    ])
  })

  it("--max-share sets the window share that warns; a bad value is refused", async () => {
    const r = await inspect(["--context", shop, "--max-share", "0.5%", "--no-last-run"])
    expect(r.stdout).toContain("[prompt-over-share]")
    expect(r.stdout).toContain("limit 0.5%")
    expect((await inspect(["--context", shop, "--max-share", "0.9", "--no-last-run"])).stdout).not.toContain(
      "prompt-over-share",
    )
    const bad = await inspect(["--context", shop, "--max-share", "2"])
    expect(bad.code).not.toBe(0)
    expect(bad.stderr).toContain("expected a share of the window")
  })

  it("remembers the tool order per model and warns when only the order changed", async () => {
    const workspace = join(dir, "order")
    await mkdir(workspace)
    const first = await inspect(["--context", shop, "--cwd", workspace])
    expect(first.stdout).not.toContain("tool-order-changed")
    const file = lastRunFile(promptlineCacheDir(home, env(), process.platform), workspace)
    const saved = JSON.parse(await readFile(file, "utf8"))
    const tools: string[] = saved.models["claude-sonnet-4-5"].tools
    expect(tools[0]).toBe("execute_command")
    saved.models["claude-sonnet-4-5"].tools = [tools[1], tools[0], ...tools.slice(2)]
    await writeFile(file, JSON.stringify(saved))
    const second = await inspect(["--context", shop, "--cwd", workspace])
    expect(second.stdout).toContain("[tool-order-changed]")
    const third = await inspect(["--context", shop, "--cwd", workspace])
    expect(third.stdout).not.toContain("tool-order-changed")
    await inspect(["--context", shop, "--cwd", workspace, "--model", "gpt-5"])
    expect(Object.keys(JSON.parse(await readFile(file, "utf8")).models)).toEqual(["claude-sonnet-4-5", "gpt-5"])
    expect(await readdir(workspace)).toEqual([])
  })

  it("a gathered workspace stays untouched: its git status and the prompt's token counts do not move", async () => {
    const workspace = join(dir, "untouched")
    await mkdir(workspace)
    await writeFile(join(workspace, "AGENTS.md"), "Keep it short.\n")
    const first = await inspect(["--cwd", workspace, "--no-mcp", "--json"])
    const second = await inspect(["--cwd", workspace, "--no-mcp", "--json"])
    expect(await readdir(workspace)).toEqual(["AGENTS.md"])
    expect(JSON.parse(second.stdout).totals).toEqual(JSON.parse(first.stdout).totals)
  })

  it("--no-last-run records nothing, in the workspace or the cache", async () => {
    const workspace = join(dir, "quiet")
    await mkdir(workspace)
    await inspect(["--context", shop, "--cwd", workspace, "--no-last-run"])
    await expect(
      readFile(lastRunFile(promptlineCacheDir(home, env(), process.platform), workspace), "utf8"),
    ).rejects.toThrow()
    expect(await readdir(workspace)).toEqual([])
  })

  it("--html writes a self-contained page; --compare adds the second build", async () => {
    const r = await inspect(["--context", shop, "--html", "report.html", "--compare", "gpt-5", "--no-last-run"])
    expect(r.code).toBe(0)
    expect(r.stdout).toBe("HTML report written to report.html (1 warning)\n") // the model's deprecation
    const html = await readFile(join(dir, "report.html"), "utf8")
    expect(html).toMatch(/^<!doctype html>/)
    expect(html).toContain('<section id="compare">')
    const missing = await inspect(["--context", shop, "--html", "no/such/dir/r.html", "--no-last-run"])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain("no/such/dir/r.html: cannot write the HTML report")
  })

  it("follows the terminal's width; --width overrides it; 100 columns when not a terminal", async () => {
    const narrow = await inspect(["--context", shop, "--no-last-run"], dir, 72)
    expect(narrow.code).toBe(0)
    expect(widest(narrow.stdout)).toBeLessThanOrEqual(72)
    expect(widest(narrow.stdout)).toBeGreaterThan(60)
    const wide = await inspect(["--context", shop, "--no-last-run"], dir, 160)
    expect(widest(wide.stdout)).toBeGreaterThan(100)
    expect(widest(wide.stdout)).toBeLessThanOrEqual(160)
    const flag = await inspect(["--context", shop, "--no-last-run", "--width", "64"], dir, 160)
    expect(widest(flag.stdout)).toBeLessThanOrEqual(64)
    const piped = await inspect(["--context", shop, "--no-last-run"])
    expect(widest(piped.stdout)).toBeLessThanOrEqual(100)
    expect(widest(piped.stdout)).toBeGreaterThan(90)
    for (const bad of ["12", "wide", "80.5"]) {
      const r = await inspect(["--context", shop, "--width", bad])
      expect(r.code).not.toBe(0)
      expect(r.stderr).toContain("expected a whole number of columns from 60 to 1000")
    }
  })

  it("--history places a conversation in the window view, counted by kind", async () => {
    const file = join(dir, "history.json")
    await writeFile(file, JSON.stringify(conversation))
    const text = await inspect(["--context", shop, "--no-last-run", "--history", "history.json"])
    expect(text.code).toBe(0)
    expect(text.stdout).toMatch(/Context window: [\d,]+ of 200,000 tokens \([\d.]+%\) for the prompt and conversation/)
    for (const label of [
      "user text",
      "assistant text",
      "tool calls",
      "tool results",
      "reasoning",
      "output reserve",
      "free space",
    ])
      expect(text.stdout).toContain(label)
    expect(text.stdout).toContain("Conversation: 3 messages")
    const json = JSON.parse((await inspect(["--context", shop, "--no-last-run", "--history", file, "--json"])).stdout)
    expect(json.window.history.messages).toBe(3)
    expect(json.window.parts.map((p: { id: string }) => p.id)).toEqual([
      "system",
      "tools",
      "mcp-tools",
      "instructions",
      "user",
      "assistant",
      "tool-calls",
      "tool-results",
      "reasoning",
      "framing",
      "reserve",
      "free",
    ])
    await writeFile(join(dir, "bad-history.json"), '[{"id": "m1", "role": "robot", "content": [], "ts": 1}]')
    const bad = await inspect(["--context", shop, "--no-last-run", "--history", "bad-history.json"])
    expect(bad.code).not.toBe(0)
    expect(bad.stderr).toContain("bad-history.json")
    expect(bad.stderr).not.toMatch(/\n\s+at /)
  })

  it("counts the gather's warnings in the HTML line and prints them once in the terminal", async () => {
    const skill = join(project, ".agents", "skills", "one")
    await mkdir(skill, { recursive: true })
    await writeFile(join(skill, "SKILL.md"), "---\nname: release\ndescription: Write release notes.\n---\nBody.\n")
    const html = await inspect(["--cwd", project, "--no-mcp", "--no-last-run", "--html", "gathered.html"])
    expect(html.stdout).toMatch(/^HTML report written to gathered.html \([1-9]\d* warnings?\)\n$/)
    const text = await inspect(["--cwd", project, "--no-mcp", "--no-last-run"])
    expect(text.stdout).not.toContain("Warnings (0)")
    expect(text.stdout).not.toContain("Diagnostics (")
    expect(text.stdout.split("[skill-name-mismatch]")).toHaveLength(2)
    await rm(join(project, ".agents"), { recursive: true })
  })

  it("--compare in the terminal prints the diff after the report", async () => {
    const r = await inspect(["--context", shop, "--compare", "gpt-5", "--no-last-run"])
    expect(r.stdout).toContain("promptline diff")
    expect(r.stdout).toContain("+ apply_patch")
  })
})
