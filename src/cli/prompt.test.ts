import { mkdir, mkdtemp, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { basicContext } from "../prompt/test-helpers/contexts.js"
import { runCli } from "./test-helpers/run.js"

let dir: string
let contextFile: string
let home: string

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "pl-cli-"))
  home = join(dir, "home")
  await mkdir(join(dir, "project"), { recursive: true })
  await mkdir(home, { recursive: true })
  await writeFile(join(dir, "project", "AGENTS.md"), "Always run the linter.\n")
  contextFile = join(dir, "context.json")
  await writeFile(contextFile, JSON.stringify(basicContext({ mcpServers: [] })))
})

describe("promptline prompt", () => {
  it("prints the system prompt and the context message of a context file", async () => {
    const r = await runCli(["prompt", "--context", contextFile])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain("# Tool use")
    expect(r.stdout).toContain("--- context message (first user turn) ---")
    expect(r.stdout).toContain("Run `npm test` before finishing.")
  })

  it("--json prints the whole result with native tool definitions", async () => {
    const r = await runCli(["prompt", "--context", contextFile, "--json"])
    const built = JSON.parse(r.stdout)
    expect(built.variant).toBe("claude")
    expect(built.nativeTools.length).toBe(built.tools.length)
    expect(built.nativeTools[0]).toHaveProperty("input_schema")
    expect(built.hash).toMatch(/^[0-9a-f]{64}$/)
  })

  it("--tool-calling, --model and --variant override the context", async () => {
    const xml = JSON.parse(
      (await runCli(["prompt", "--context", contextFile, "--json", "--tool-calling", "xml"])).stdout,
    )
    expect(xml.toolCalling).toBe("xml")
    expect(xml.nativeTools).toEqual([])
    expect(xml.text).toContain("<read_file>")
    const gpt = JSON.parse((await runCli(["prompt", "--context", contextFile, "--json", "--model", "gpt-5"])).stdout)
    expect(gpt.variant).toBe("gpt")
    expect(gpt.wireFormat).toBe("openai-responses")
    expect(gpt.tools.map((t: { id: string }) => t.id)).toContain("apply_patch")
    const forced = JSON.parse(
      (await runCli(["prompt", "--context", contextFile, "--json", "--variant", "compact"])).stdout,
    )
    expect(forced.variant).toBe("compact")
  })

  it("--section prints one section; an unknown one is a one-line error", async () => {
    const r = await runCli(["prompt", "--context", contextFile, "--section", "rules"])
    expect(r.stdout.startsWith("# Rules")).toBe(true)
    const bad = await runCli(["prompt", "--context", contextFile, "--section", "nope"])
    expect(bad.code).toBe(1)
    expect(bad.stderr.trim().split("\n")).toHaveLength(1)
    expect(bad.stderr).toContain('no section "nope"')
  })

  it("reports every bad field of a context file and exits non-zero", async () => {
    const bad = join(dir, "bad.json")
    await writeFile(bad, JSON.stringify({ version: 1, cwd: "/x", date: "yesterday", mode: "fly" }))
    const r = await runCli(["prompt", "--context", bad])
    expect(r.code).toBe(1)
    for (const field of ["date", "mode", "platform", "model"]) expect(r.stderr).toContain(`${field}:`)
  })

  it("gathers the workspace when no context file is given", async () => {
    const cwd = join(dir, "project")
    const env = { HOME: home, SHELL: "/bin/zsh", PATH: process.env.PATH }
    const trusted = await runCli(["prompt", "--cwd", cwd, "--no-mcp"], { env })
    expect(trusted.code).toBe(0)
    expect(trusted.stdout).toContain("Always run the linter.")
    expect(trusted.stdout).toContain("Today's date: 2026-11-29")
    const untrusted = await runCli(["prompt", "--cwd", cwd, "--no-trust", "--no-mcp"], { env })
    expect(untrusted.stdout).not.toContain("Always run the linter.")
  })
})

describe("promptline context", () => {
  it("prints a context that `prompt --context` accepts unchanged", async () => {
    const cwd = join(dir, "project")
    const env = { HOME: home, SHELL: "/bin/zsh", PATH: process.env.PATH }
    const r = await runCli(["context", "--json", "--cwd", cwd, "--no-mcp"], { env })
    expect(r.code).toBe(0)
    const saved = join(dir, "saved.json")
    await writeFile(saved, r.stdout)
    const fromFile = await runCli(["prompt", "--context", saved, "--json"])
    const fromGather = await runCli(["prompt", "--cwd", cwd, "--no-mcp", "--json"], { env })
    expect(JSON.parse(fromFile.stdout).text).toBe(JSON.parse(fromGather.stdout).text)
    expect(JSON.parse(fromFile.stdout).contextMessage).toBe(JSON.parse(fromGather.stdout).contextMessage)
  })
})

describe("promptline variants", () => {
  it("explains the choice for a model", async () => {
    const r = await runCli(["variants", "--context", contextFile, "--model", "qwen3-coder:30b"])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/\* compact/)
    expect(r.stdout).toContain('gets "compact": local model')
    const json = JSON.parse((await runCli(["variants", "--context", contextFile, "--json"])).stdout)
    expect(json.variant).toBe("claude")
    expect(json.considered.map((c: { id: string }) => c.id)).toEqual([
      "subagent",
      "compact",
      "claude",
      "gemini",
      "gpt",
      "generic",
    ])
  })

  it("has --help on every command", async () => {
    for (const cmd of ["prompt", "context", "variants"]) {
      const r = await runCli([cmd, "--help"])
      expect(r.code).toBe(0)
      expect(r.stdout).toContain(`Usage: promptline ${cmd}`)
    }
  })
})
