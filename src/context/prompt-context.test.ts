import { mkdtemp, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { FileError, ValidationError } from "../errors.js"
import { createContext, loadContext, parseContext } from "./prompt-context.js"

const minimal = {
  version: 1 as const,
  cwd: "/srv/app",
  platform: { os: "Linux", shell: "bash", home: "/home/dev" },
  date: "2026-11-29",
  model: { id: "claude-sonnet-4-5", provider: "anthropic" },
}

describe("PromptContext", () => {
  it("fills defaults for everything optional", () => {
    const ctx = parseContext(minimal)
    expect(ctx.mode).toBe("act")
    expect(ctx.audience).toBe("primary")
    expect(ctx.interactive).toBe(true)
    expect(ctx.autonomy).toBe("ask")
    expect(ctx.placement).toBe("context-message")
    expect(ctx.instructions).toEqual([])
    expect(ctx.agent.name).toBe("promptline")
  })

  it("reports every bad field by path, not only the first", () => {
    const bad = {
      ...minimal,
      date: "29/11/2026",
      mode: "sprint",
      features: { browser: "yes" },
      instructions: [{ path: "AGENTS.md", convention: "agents-md", scope: "project" }],
      extra: 1,
    }
    try {
      parseContext(bad, "ctx.json")
      expect.unreachable()
    } catch (e) {
      expect(e).toBeInstanceOf(ValidationError)
      const paths = (e as ValidationError).issues.map((i) => i.path).sort()
      expect(paths).toEqual(["", "date", "features.browser", "instructions[0].text", "mode"])
      expect((e as ValidationError).message).toContain("ctx.json")
    }
  })

  it("round-trips through JSON unchanged", () => {
    const ctx = createContext({
      ...minimal,
      features: { browser: true },
      skills: [{ name: "pdf", description: "Reads PDFs", path: ".agents/skills/pdf/SKILL.md" }],
    })
    expect(parseContext(JSON.parse(JSON.stringify(ctx)))).toEqual(ctx)
  })

  it("loads a file and names the line of a JSON syntax error", async () => {
    const dir = await mkdtemp(join(tmpdir(), "pl-ctx-"))
    const good = join(dir, "good.json")
    await writeFile(good, JSON.stringify(minimal))
    expect((await loadContext(good)).model.id).toBe("claude-sonnet-4-5")
    const broken = join(dir, "broken.json")
    await writeFile(broken, '{\n  "version": 1,\n  "cwd": ,\n}')
    await expect(loadContext(broken)).rejects.toSatisfy((e) => e instanceof FileError && e.line === 3)
    await expect(loadContext(join(dir, "missing.json"))).rejects.toBeInstanceOf(FileError)
  })
})
