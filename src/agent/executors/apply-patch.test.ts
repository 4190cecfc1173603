import { lstat, readdir, stat, symlink } from "node:fs/promises"
import path from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { type TempWorkspace, tempWorkspace, textOf } from "./test-helpers/workspace.js"

let ws: TempWorkspace
beforeEach(async () => {
  ws = await tempWorkspace()
  await ws.write("src/app.py", "import sys\n\ndef main():\n    print('hi')\n    return 0\n")
  await ws.write("old.txt", "bye\n")
  await ws.write("keep.txt", "keep\n")
})
afterEach(() => ws.dispose())

const patch = (...lines: string[]) => ["*** Begin Patch", ...lines, "*** End Patch"].join("\n")

async function exists(file: string) {
  return stat(path.join(ws.root, file)).then(
    () => true,
    () => false,
  )
}

describe("apply_patch", () => {
  it("adds, updates, moves and deletes files in one patch", async () => {
    const out = await ws.run("apply_patch", {
      input: patch(
        "*** Add File: docs/readme.md",
        "+# App",
        "+",
        "+Run it.",
        "*** Update File: src/app.py",
        "*** Move to: src/main.py",
        "@@ def main():",
        "-    print('hi')",
        "+    print('hello')",
        "*** Delete File: old.txt",
      ),
    })
    expect(out.isError).toBe(false)
    expect(textOf(out)).toBe(
      "Patch applied: added docs/readme.md; moved src/app.py to src/main.py and updated it; deleted old.txt.",
    )
    expect(out.summary).toBe("patched 4 files")
    expect(out.touched.map((t) => t.path).sort()).toEqual(["docs/readme.md", "old.txt", "src/app.py", "src/main.py"])
    expect(await ws.read("docs/readme.md")).toBe("# App\n\nRun it.\n")
    expect(await ws.read("src/main.py")).toBe("import sys\n\ndef main():\n    print('hello')\n    return 0\n")
    expect(await exists("src/app.py")).toBe(false)
    expect(await exists("old.txt")).toBe(false)
  })

  it("changes nothing when one operation of the patch fails", async () => {
    const out = await ws.run("apply_patch", {
      input: patch(
        "*** Add File: new.txt",
        "+new",
        "*** Update File: keep.txt",
        "-keep",
        "+kept",
        "*** Update File: src/app.py",
        "@@",
        "-    print('not there')",
        "+    print('x')",
      ),
    })
    expect(out.isError).toBe(true)
    expect(textOf(out)).toContain("no file changed")
    expect(textOf(out)).toContain("src/app.py")
    expect(await exists("new.txt")).toBe(false)
    expect(await ws.read("keep.txt")).toBe("keep\n")
  })

  it("refuses to delete or update a missing file, and to move onto an existing one", async () => {
    const del = await ws.run("apply_patch", { input: patch("*** Delete File: nope.txt") })
    expect(textOf(del)).toContain("Delete File nope.txt: no such file")
    const upd = await ws.run("apply_patch", { input: patch("*** Update File: nope.txt", "-a", "+b") })
    expect(textOf(upd)).toContain("Update File nope.txt: no such file")
    const mv = await ws.run("apply_patch", { input: patch("*** Update File: old.txt", "*** Move to: keep.txt") })
    expect(textOf(mv)).toContain("already exists")
    expect(await ws.read("keep.txt")).toBe("keep\n")
  })

  it("moves a file without changing it", async () => {
    const out = await ws.run("apply_patch", {
      input: patch("*** Update File: old.txt", "*** Move to: archive/old.txt"),
    })
    expect(out.isError).toBe(false)
    expect(await ws.read("archive/old.txt")).toBe("bye\n")
    expect(await exists("old.txt")).toBe(false)
  })

  it("applies several operations on the same file in order", async () => {
    const out = await ws.run("apply_patch", {
      input: patch("*** Update File: keep.txt", "-keep", "+one", "*** Update File: keep.txt", "-one", "+two"),
    })
    expect(out.isError).toBe(false)
    expect(await ws.read("keep.txt")).toBe("two\n")
  })

  it("updates a file through a symlink, sharing one state with the file's own path", async () => {
    await symlink("keep.txt", path.join(ws.root, "link.txt"))
    const out = await ws.run("apply_patch", {
      input: patch("*** Update File: link.txt", "-keep", "+kept", "*** Update File: keep.txt", "-kept", "+kept twice"),
    })
    expect(out.isError).toBe(false)
    expect(await ws.read("keep.txt")).toBe("kept twice\n")
    expect((await lstat(path.join(ws.root, "link.txt"))).isSymbolicLink()).toBe(true)
    expect(await ws.read("link.txt")).toBe("kept twice\n")
  })

  it("deletes or moves a symlink itself and leaves the file it points to", async () => {
    await symlink("keep.txt", path.join(ws.root, "gone.txt"))
    await symlink("old.txt", path.join(ws.root, "moved.txt"))
    const out = await ws.run("apply_patch", {
      input: patch("*** Delete File: gone.txt", "*** Update File: moved.txt", "*** Move to: copy.txt", "-bye", "+hi"),
    })
    expect(out.isError).toBe(false)
    expect(out.touched.map((t) => t.path).sort()).toEqual(["copy.txt", "gone.txt", "moved.txt"])
    expect(await exists("gone.txt")).toBe(false)
    expect(await exists("moved.txt")).toBe(false)
    expect(await ws.read("keep.txt")).toBe("keep\n")
    expect(await ws.read("old.txt")).toBe("bye\n")
    expect(await ws.read("copy.txt")).toBe("hi\n")
  })

  it("keeps CRLF line endings of an updated file", async () => {
    await ws.write("win.txt", "a\r\nb\r\n")
    await ws.run("apply_patch", { input: patch("*** Update File: win.txt", " a", "-b", "+c") })
    expect(await ws.read("win.txt")).toBe("a\r\nc\r\n")
  })

  it("refuses paths outside the workspace, including through a symlink, before writing anything", async () => {
    const other = await tempWorkspace("promptline-outside-")
    try {
      await symlink(other.root, path.join(ws.root, "out"))
      for (const target of ["../evil.txt", "out/evil.txt", path.join(other.root, "evil.txt")]) {
        const out = await ws.run("apply_patch", {
          input: patch("*** Add File: fine.txt", "+ok", `*** Add File: ${target}`, "+x"),
        })
        expect(out.isError).toBe(true)
        expect(textOf(out)).toMatch(/outside the workspace|symbolic link/)
      }
      expect(await readdir(other.root)).toEqual([])
      expect(await exists("fine.txt")).toBe(false)
    } finally {
      await other.dispose()
    }
  })

  it("writes nothing when a file cannot be written (a file stands where a folder is needed)", async () => {
    await ws.write("blocker", "I am a file\n")
    const out = await ws.run("apply_patch", {
      input: patch("*** Update File: keep.txt", "-keep", "+changed", "*** Add File: blocker/inside.txt", "+x"),
    })
    expect(out.isError).toBe(true)
    expect(textOf(out)).toContain("rolled back")
    expect(await ws.read("keep.txt")).toBe("keep\n")
    expect((await readdir(ws.root)).sort()).toEqual(["blocker", "keep.txt", "old.txt", "src"])
  })

  it("reports a syntax error with its line", async () => {
    const out = await ws.run("apply_patch", { input: "*** Begin Patch\n*** Add File: a\n+x\n" })
    expect(out.isError).toBe(true)
    expect(textOf(out)).toBe('The patch was not applied: line 3: a patch ends with "*** End Patch" (is it cut short?).')
  })
})
