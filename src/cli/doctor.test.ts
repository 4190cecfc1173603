import { readFile } from "node:fs/promises"
import { basename, join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { cleanup, monorepo, tempDir, writeTree } from "../context/test-helpers/workspace.js"
import type { CliIO } from "./io.js"
import { main } from "./main.js"

let repo: string
let home: string

function bufferIO(cwd: string): CliIO & { out: () => string; err: () => string } {
  let out = ""
  let err = ""
  return {
    stdout: (t) => {
      out += t
    },
    stderr: (t) => {
      err += t
    },
    cwd,
    env: { HOME: home },
    today: () => "2025-06-01",
    out: () => out,
    err: () => err,
  }
}

beforeAll(async () => {
  repo = await monorepo()
  home = await tempDir("promptline-home-")
  await writeTree(repo, {
    ".mcp.json": JSON.stringify({ mcpServers: { down: { command: "promptline-no-such-command" } } }),
  })
})
afterAll(async () => {
  await cleanup(repo)
  await cleanup(home)
})

describe("promptline doctor", () => {
  it("lists every file, skill and server with status and reason, and fails on errors", async () => {
    const io = bufferIO(repo)
    const code = await main(["doctor", "--trust"], io)
    const out = io.out()
    expect(out).toMatch(
      /^Workspace .+ \(git root .+, branch main\); trusted \(--trust\)\n {2}Project files are read and project MCP servers may start\.\n/,
    )
    expect(out).toMatch(/Instruction files \(29 considered\)/)
    expect(out).toMatch(/ {2}loaded {6}AGENTS\.md +agents-md · \d+ bytes/)
    expect(out).toMatch(/ {2}conditional \.claude\/rules\/testing\.md +claude · globs: \*\*\/\*\.test\.ts/)
    expect(out).toMatch(/ {2}ignored {5}\.cursor\/rules\/private\.mdc +cursor · ignored by \.gitignore:3/)
    expect(out).toMatch(/ {2}requested {3}\.cursor\/rules\/db\.mdc +cursor · Database migrations/)
    expect(out).toMatch(/ {2}skipped {5}packages\/web\/AGENTS\.md +agents-md · replaced by AGENTS\.override\.md/)
    expect(out).toMatch(/ {2}nested {6}packages\/api\/AGENTS\.md/)
    expect(out).toMatch(/Skills \(7 considered\)\n {2}loaded +\.agents\/skills\/deploy\/SKILL\.md/)
    expect(out).toMatch(
      /MCP servers \(1 considered\)\n {2}failed +down +claude · spawn promptline-no-such-command ENOENT/,
    )
    expect(out).toContain("error .mcp.json: MCP server `down`")
    expect(out).toMatch(
      /Summary: instructions 15 loaded, 5 conditional, 2 requested, 2 manual, 1 ignored, 3 nested, 1 skipped; skills 3 loaded, 2 skipped, 1 shadowed, 1 hidden; MCP servers 1 failed; 3 error\(s\)/,
    )
    expect(code).toBe(1)
  })

  it("without --trust and without a terminal, reads project files but starts no project MCP server, and says why", async () => {
    const io = bufferIO(repo)
    await main(["doctor"], io)
    const out = io.out()
    expect(out).toMatch(
      /; not trusted\n {2}Project files are read; project MCP servers are not started: pass --trust, or add the folder to "trustedFolders"/,
    )
    expect(out).toMatch(/ {2}loaded {6}AGENTS\.md/)
    expect(out).toMatch(/MCP servers \(1 considered\)\n {2}skipped +down/)
    // One verdict: the first lines say it, so the warning that says it again for other commands is left out.
    expect(out).not.toMatch(/; trusted/)
    expect(out).not.toContain("[mcp-untrusted]")
  })

  it("at a terminal asks once, records the answer in the user's config, and does not ask again", async () => {
    const ws = await monorepo()
    const asker = await tempDir("promptline-home-asker-")
    try {
      await writeTree(ws, {
        ".mcp.json": JSON.stringify({ mcpServers: { down: { command: "promptline-no-such-command" } } }),
      })
      const questions: string[] = []
      const reply = (answer: string) => async (q: string) => {
        questions.push(q)
        return answer
      }
      const io = { ...bufferIO(ws), env: { HOME: asker } }
      const ask = { ...io, question: reply("y") }
      await main(["doctor"], ask)
      expect(questions).toHaveLength(1)
      expect(questions[0]).toContain("(down)")
      expect(ask.out()).toMatch(/; trusted \(you answered yes, recorded in .+promptline\.config\.json\)\n/)
      expect(ask.out()).toMatch(/ {2}failed +down/)
      const config = JSON.parse(await readFile(join(asker, ".config", "promptline", "promptline.config.json"), "utf8"))
      expect(config.trustedFolders).toHaveLength(1)
      const again = { ...bufferIO(ws), env: { HOME: asker }, question: reply("n") }
      await main(["doctor"], again)
      expect(questions).toHaveLength(1)
      expect(again.out()).toMatch(/; trusted \(.+ is a trusted folder, recorded in .+promptline\.config\.json\)\n/)
    } finally {
      await cleanup(ws)
      await cleanup(asker)
    }
  })

  it("after a refusal says declined once, in the first line, then and on every later report", async () => {
    const ws = await monorepo()
    const asker = await tempDir("promptline-home-refuser-")
    try {
      await writeTree(ws, {
        ".mcp.json": JSON.stringify({ mcpServers: { down: { command: "promptline-no-such-command" } } }),
      })
      const questions: string[] = []
      const no = async (q: string) => {
        questions.push(q)
        return "n"
      }
      const reports: string[] = []
      for (let i = 0; i < 2; i++) {
        const io = { ...bufferIO(ws), env: { HOME: asker }, question: no }
        await main(["doctor"], io)
        reports.push(io.out())
      }
      expect(questions).toHaveLength(1)
      for (const out of reports) {
        expect(out.match(/declined/g)).toHaveLength(1)
        expect(out.split("\n")[0]).toMatch(/; declined \((you answered no|for .+), recorded in .+\.json\)$/)
        expect(out).toMatch(/--trust starts them; to be asked again, take the folder out of that file/)
        expect(out).not.toMatch(/; trusted|\[mcp-untrusted\]/)
      }
    } finally {
      await cleanup(ws)
      await cleanup(asker)
    }
  })

  it("asks nothing with --no-mcp, since nothing would start", async () => {
    const questions: string[] = []
    const io = {
      ...bufferIO(repo),
      question: async (q: string) => {
        questions.push(q)
        return "y"
      },
    }
    await main(["doctor", "--no-mcp"], io)
    expect(questions).toEqual([])
    expect(io.out().split("\n")[0]).toMatch(/; not trusted$/)
  })

  it("shows an untrusted workspace: everything listed as skipped, nothing started", async () => {
    const io = bufferIO(repo)
    const code = await main(["doctor", "--no-trust", "--json"], io)
    const report = JSON.parse(io.out())
    expect(report.trusted).toBe(false)
    expect(report.projectFiles).toBe("listed")
    const project = report.report.instructions.filter((e: { scope: string }) => e.scope === "project")
    expect(project.every((e: { status: string }) => e.status === "skipped")).toBe(true)
    expect(report.report.mcpServers).toEqual([expect.objectContaining({ path: "down", status: "skipped" })])
    expect(code).toBe(0)
  })

  it("warns when the project has no instructions at all", async () => {
    const empty = await tempDir()
    try {
      const io = bufferIO(empty)
      const code = await main(["doctor", "--cwd", join(empty), "--json"], io)
      const report = JSON.parse(io.out())
      expect(report.git).toBeNull()
      expect(report.diagnostics).toEqual([expect.objectContaining({ level: "warning", code: "no-instructions" })])
      expect(code).toBe(0)
      const text = bufferIO(empty)
      await main(["doctor", "--cwd", empty], text)
      expect(text.out()).toContain("Instruction files (0 considered)\n  none found")
      expect(text.out()).toContain("[no-instructions]")
    } finally {
      await cleanup(empty)
    }
  })

  it("reads user-level files from the HOME it is given", async () => {
    const ws = await tempDir()
    await writeTree(home, { ".codex/AGENTS.md": "user rules\n" })
    try {
      const io = bufferIO(join(ws, ".."))
      await main(["doctor", "--json", "--no-mcp", "--cwd", basename(ws)], io)
      const report = JSON.parse(io.out())
      expect(report.report.instructions).toEqual([
        expect.objectContaining({ path: "~/.codex/AGENTS.md", scope: "user", status: "loaded" }),
      ])
    } finally {
      await cleanup(ws)
    }
  })
})
