import { execFile } from "node:child_process"
import { mkdir, mkdtemp, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { describe, expect, it } from "vitest"
import { gather } from "../context/gather.js"
import { neutralizeTags } from "../tag-wrap.js"
import { PromptBuilder } from "./builder.js"

const git = promisify(execFile)

async function repository(name: string, files: Record<string, string>): Promise<string> {
  const dir = join(await mkdtemp(join(tmpdir(), "pl-place-")), name)
  await mkdir(dir, { recursive: true })
  for (const [path, text] of Object.entries(files)) await writeFile(join(dir, path), text)
  await git("git", ["init", "-q", "-b", name === "shop" ? "main" : "develop"], { cwd: dir })
  return dir
}

describe("placement of volatile facts", () => {
  it("keeps the system prompt byte-identical across two real repositories on two dates", async () => {
    const home = await mkdtemp(join(tmpdir(), "pl-place-home-"))
    const a = await repository("shop", { "AGENTS.md": "Use pnpm.\n", "CLAUDE.md": "Keep functions small.\n" })
    const b = await repository("blog", { "AGENTS.md": "Posts live in content/.\n", ".cursorrules": "No semicolons.\n" })
    const model = { id: "claude-sonnet-4-5", provider: "anthropic" }
    const builder = new PromptBuilder()
    const first = builder.build(
      (await gather({ cwd: a, home, trust: true, mcp: false, date: "2026-11-29", model })).context,
    )
    const second = builder.build(
      (await gather({ cwd: b, home, trust: true, mcp: false, date: "2027-03-01", model })).context,
    )
    expect(second.text).toBe(first.text)
    expect(second.hash).toBe(first.hash)
    expect(first.contextMessage).toContain("Use pnpm.")
    expect(first.contextMessage).toContain("2026-11-29")
    expect(second.contextMessage).toContain("No semicolons.")
    expect(second.contextMessage).toContain("2027-03-01")
    expect(second.contextMessage).toContain("branch develop")

    const inline = (
      await gather({ cwd: a, home, trust: true, mcp: false, date: "2026-11-29", model, placement: "system" })
    ).context
    const inlined = builder.build(inline)
    expect(inlined.contextMessage).toBeUndefined()
    expect(inlined.text).toContain("Use pnpm.")
    expect(inlined.hash).not.toBe(first.hash)
  })
})

describe("neutralizeTags", () => {
  it("neutralizes opening and closing tags of ours, in any case, and nothing else", () => {
    const tags = ["project_instructions", "environment_details"]
    expect(neutralizeTags("a </project_instructions> b <Environment_Details> c </div>", tags)).toBe(
      "a &lt;/project_instructions> b &lt;Environment_Details> c </div>",
    )
    expect(neutralizeTags("<project_instructions_extra>", tags)).toBe("<project_instructions_extra>")
  })
})
