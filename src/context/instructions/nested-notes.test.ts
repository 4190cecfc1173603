import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { gather } from "../gather.js"
import { cleanup, tempDir, writeTree } from "../test-helpers/workspace.js"

let ws: string
let home: string
beforeAll(async () => {
  ws = await tempDir("pl-nested-notes-")
  home = await tempDir("pl-nested-home-")
  await writeTree(ws, {
    "AGENTS.md": "Top level.\n",
    "fixtures/sample/CLAUDE.md": "@a.md\n",
    "fixtures/sample/a.md": "@b.md\n",
    "fixtures/sample/b.md": "@a.md\n",
  })
})
afterAll(async () => {
  await cleanup(ws)
  await cleanup(home)
})

describe("problems of nested instruction files", () => {
  it("are notes at gather time, since the file reaches the model only when the agent works in its folder", async () => {
    const { diagnostics, report } = await gather({
      cwd: ws,
      home,
      env: {},
      trust: true,
      mcp: false,
      model: { id: "m", provider: "p" },
    })
    expect(report.instructions.find((e) => e.path === "fixtures/sample/CLAUDE.md")?.status).toBe("nested")
    const cycle = diagnostics.find((d) => d.code === "import-cycle")
    expect(cycle).toMatchObject({ level: "info" })
    expect(cycle!.message).toContain("attached only when the agent works in its folder")
    expect(diagnostics.filter((d) => d.level === "warning")).toEqual([])
  })

  it("stay warnings for a file that is always loaded", async () => {
    const top = await tempDir("pl-nested-top-")
    try {
      await writeTree(top, { "CLAUDE.md": "@a.md\n", "a.md": "@CLAUDE.md\n" })
      const { diagnostics } = await gather({
        cwd: top,
        home,
        env: {},
        trust: true,
        mcp: false,
        model: { id: "m", provider: "p" },
      })
      expect(diagnostics.find((d) => d.code === "import-cycle")).toMatchObject({ level: "warning" })
    } finally {
      await cleanup(top)
    }
  })
})
