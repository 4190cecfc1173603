import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { writeSampleTree } from "./test-helpers/tree.js"
import { type TempWorkspace, tempWorkspace, textOf } from "./test-helpers/workspace.js"

let ws: TempWorkspace
beforeAll(async () => {
  ws = await tempWorkspace()
  await writeSampleTree(ws)
})
afterAll(() => ws.dispose())

describe("list_files", () => {
  it("lists a folder's entries, sorted, folders marked, ignored entries left out", async () => {
    const out = await ws.run("list_files", { path: "." })
    expect(textOf(out)).toBe(
      [".env", ".gitignore", ".hidden/", ".ignore", "README.md", "image.bin", "node_modules/", "src/"].join("\n"),
    )
    expect(out.summary).toBe("listed . (8 entries)")
    expect(out.touched).toEqual([{ path: ".", access: "read" }])
  })

  it("lists recursively, honouring nested ignore files and not entering node_modules", async () => {
    const out = await ws.run("list_files", { path: "src", recursive: true })
    expect(textOf(out)).toBe(
      [
        "src/.gitignore",
        "src/deep/",
        "src/deep/nested/",
        "src/deep/nested/thing.py",
        "src/keep.gen.ts",
        "src/main.ts",
        "src/util.ts",
        "src/z-last.ts",
      ].join("\n"),
    )
    const all = textOf(await ws.run("list_files", { path: ".", recursive: "true" }))
    expect(all).toContain("node_modules/ (not listed)")
    expect(all).not.toContain("node_modules/lib")
    expect(all).not.toContain("dist/")
    expect(all).not.toContain("app.log")
    expect(all).not.toContain("secrets.txt")
  })

  it("caps a long listing, keeping the shallow levels, with a notice", async () => {
    const out = await ws.run("list_files", { path: ".", recursive: true }, { limits: { listMaxEntries: 9 } })
    const text = textOf(out)
    expect(text).toContain("src/")
    expect(text).not.toContain("src/deep/nested/thing.py")
    expect(text).toContain("[Showing the first 9 entries (shallowest first); there are more.")
    expect(out.details).toMatchObject({ entries: 9, cut: true })
  })

  it("reports a file, a missing folder and a path outside the workspace", async () => {
    expect(textOf(await ws.run("list_files", { path: "README.md" }))).toContain("is a file")
    expect((await ws.run("list_files", { path: "missing" })).isError).toBe(true)
    expect(textOf(await ws.run("list_files", { path: "/" }))).toContain("outside the workspace")
  })

  it("rejects a recursive flag that is not a boolean", async () => {
    const out = await ws.run("list_files", { path: ".", recursive: "sometimes" })
    expect(textOf(out)).toBe("Invalid arguments for list_files: parameter 'recursive': expected true or false.")
  })
})

describe("list_files and the agent's own session files", () => {
  it("never shows .promptline/sessions, listed from above or asked for directly (the rule search_files shares)", async () => {
    const own = await tempWorkspace()
    try {
      await own.write(".promptline/settings.json", "{}\n")
      await own.write(".promptline/sessions/s1/history.jsonl", '{"secret":1}\n')
      await own.write("a.txt", "a\n")
      const all = textOf(await own.run("list_files", { path: ".", recursive: true }))
      expect(all).toBe([".promptline/", ".promptline/settings.json", "a.txt"].join("\n"))
      const inside = await own.run("list_files", { path: ".promptline/sessions/s1" })
      expect(inside.isError).toBe(true)
      expect(textOf(inside)).toMatch(/agent's own session files/)
      for (const ripgrep of [false, undefined] as const) {
        const found = await own.run("search_files", { path: ".promptline/sessions", regex: "secret" }, { ripgrep })
        expect(found.isError).toBe(true)
        expect(textOf(found)).not.toContain("history.jsonl")
      }
    } finally {
      await own.dispose()
    }
  })
})
