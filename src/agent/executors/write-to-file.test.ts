import { lstat, readFile, readlink, stat, symlink } from "node:fs/promises"
import path from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { type TempWorkspace, tempWorkspace, textOf } from "./test-helpers/workspace.js"

let ws: TempWorkspace
let other: TempWorkspace
beforeEach(async () => {
  ws = await tempWorkspace()
  other = await tempWorkspace("promptline-outside-")
})
afterEach(async () => {
  await ws.dispose()
  await other.dispose()
})

describe("write_to_file", () => {
  it("creates missing folders and reports the final line count", async () => {
    const out = await ws.run("write_to_file", { path: "a/b/c.txt", content: "one\ntwo\nthree\n" })
    expect(out).toMatchObject({ isError: false, summary: "created a/b/c.txt (3 lines)" })
    expect(out.touched).toEqual([{ path: "a/b/c.txt", access: "write" }])
    expect(await ws.read("a/b/c.txt")).toBe("one\ntwo\nthree\n")
  })

  it("replaces an existing file, keeping its permissions, and leaves no temporary file", async () => {
    const file = await ws.write("run.sh", "echo old\n")
    const { chmod, readdir } = await import("node:fs/promises")
    await chmod(file, 0o755)
    const out = await ws.run("write_to_file", { path: "run.sh", content: "echo new" })
    expect(out.summary).toBe("replaced run.sh (1 line)")
    expect(await ws.read("run.sh")).toBe("echo new")
    expect((await stat(file)).mode & 0o777).toBe(0o755)
    expect(await readdir(ws.root)).toEqual(["run.sh"])
  })

  it("writes through a symlink to its target and keeps the link", async () => {
    await ws.write("AGENTS.md", "old rules\n")
    await symlink("AGENTS.md", path.join(ws.root, "CLAUDE.md"))
    const out = await ws.run("write_to_file", { path: "CLAUDE.md", content: "new rules\n" })
    expect(out).toMatchObject({ isError: false, summary: "replaced CLAUDE.md (1 line)" })
    expect(await ws.read("AGENTS.md")).toBe("new rules\n")
    expect((await lstat(path.join(ws.root, "CLAUDE.md"))).isSymbolicLink()).toBe(true)
    expect(await readlink(path.join(ws.root, "CLAUDE.md"))).toBe("AGENTS.md")
  })

  it("refuses a write outside the workspace, and the file is not created", async () => {
    const target = path.join(other.root, "evil.txt")
    for (const p of [target, path.relative(ws.root, target)]) {
      const out = await ws.run("write_to_file", { path: p, content: "x" })
      expect(out.isError).toBe(true)
      expect(textOf(out)).toContain("outside the workspace")
    }
    await expect(stat(target)).rejects.toThrow()
  })

  it("refuses a write through a symlinked folder that leads outside", async () => {
    await symlink(other.root, path.join(ws.root, "escape"))
    const out = await ws.run("write_to_file", { path: "escape/evil.txt", content: "x" })
    expect(out.isError).toBe(true)
    expect(textOf(out)).toContain("symbolic link")
    await expect(readFile(path.join(other.root, "evil.txt"))).rejects.toThrow()
  })

  it("writes outside the workspace into an allowed root", async () => {
    const out = await ws.run(
      "write_to_file",
      { path: path.join(other.root, "ok.txt"), content: "fine" },
      { allowedRoots: [other.root] },
    )
    expect(out.isError).toBe(false)
    expect(await other.read("ok.txt")).toBe("fine")
  })

  it("refuses a folder as the target and reports a missing content parameter", async () => {
    await ws.write("dir/x", "x")
    expect((await ws.run("write_to_file", { path: "dir", content: "x" })).isError).toBe(true)
    const missing = await ws.run("write_to_file", { path: "x.txt" })
    expect(textOf(missing)).toBe("Invalid arguments for write_to_file: missing required parameter 'content'.")
  })
})
