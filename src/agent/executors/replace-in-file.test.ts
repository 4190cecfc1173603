import { lstat, readdir, symlink } from "node:fs/promises"
import path from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { type TempWorkspace, tempWorkspace, textOf } from "./test-helpers/workspace.js"

let ws: TempWorkspace
beforeEach(async () => {
  ws = await tempWorkspace()
})
afterEach(() => ws.dispose())

const block = (search: string, replace: string) => `<<<<<<< SEARCH\n${search}\n=======\n${replace}\n>>>>>>> REPLACE\n`

const source = `export function add(a, b) {
  return a + b
}

export function sub(a, b) {
  return a - b
}

export function mul(a, b) {
  return a * b
}
`

describe("replace_in_file", () => {
  it("applies every block and writes the file once", async () => {
    await ws.write("math.js", source)
    const diff = block("  return a + b", "  return b + a") + block("  return a * b", "  return b * a")
    const out = await ws.run("replace_in_file", { path: "math.js", diff })
    expect(out).toMatchObject({ isError: false, summary: "edited math.js (2 blocks)" })
    expect(out.touched).toEqual([{ path: "math.js", access: "write" }])
    expect(await ws.read("math.js")).toBe(source.replace("a + b", "b + a").replace("a * b", "b * a"))
    expect(textOf(out)).toContain("block 1: now line 2")
  })

  it("edits the target of a symlink and keeps the link", async () => {
    await ws.write("lib/math.js", source)
    await symlink("lib/math.js", path.join(ws.root, "math.js"))
    const out = await ws.run("replace_in_file", { path: "math.js", diff: block("  return a - b", "  return b - a") })
    expect(out.isError).toBe(false)
    expect(await ws.read("lib/math.js")).toBe(source.replace("a - b", "b - a"))
    expect((await lstat(path.join(ws.root, "math.js"))).isSymbolicLink()).toBe(true)
  })

  it("names the one failing block among three, applies the other two, and saves", async () => {
    await ws.write("math.js", source)
    const diff =
      block("  return a + b", "  return a + b + 0") +
      block("  return a % b\n  // gone", "  return 0") +
      block("  return a * b", "  return a * b * 1")
    const out = await ws.run("replace_in_file", { path: "math.js", diff })
    expect(out.isError).toBe(true)
    expect(out.summary).toBe("edited math.js (2/3 blocks, 1 failed)")
    expect(textOf(out)).toContain('block 2 (first line: "return a % b") failed')
    expect(out.details).toEqual({ applied: 2, failed: [2] })
    const after = await ws.read("math.js")
    expect(after).toContain("return a + b + 0")
    expect(after).toContain("return a * b * 1")
    expect(after).toContain("return a - b")
    expect((await readdir(ws.root)).sort()).toEqual(["math.js"])
  })

  it("changes nothing when every block fails", async () => {
    await ws.write("math.js", source)
    const out = await ws.run("replace_in_file", { path: "math.js", diff: block("nothing like this", "x") })
    expect(out.isError).toBe(true)
    expect(textOf(out)).toContain("No change made")
    expect(await ws.read("math.js")).toBe(source)
  })

  it("matches lines whose indentation the model got wrong", async () => {
    await ws.write("math.js", source)
    const out = await ws.run("replace_in_file", {
      path: "math.js",
      diff: block("export function sub(a, b) {\nreturn a - b\n}", "export const sub = (a, b) => a - b"),
    })
    expect(out.isError).toBe(false)
    expect(textOf(out)).toContain("ignoring indentation")
    expect(await ws.read("math.js")).toContain("export const sub = (a, b) => a - b\n\nexport function mul")
  })

  it("keeps CRLF line endings and a byte-order mark", async () => {
    await ws.write("win.txt", "\uFEFFone\r\ntwo\r\nthree\r\n")
    const out = await ws.run("replace_in_file", { path: "win.txt", diff: block("two", "2") })
    expect(out.isError).toBe(false)
    expect(await ws.read("win.txt")).toBe("\uFEFFone\r\n2\r\nthree\r\n")
  })

  it("accepts the ------- SEARCH / +++++++ REPLACE markers", async () => {
    await ws.write("a.txt", "hello\n")
    const out = await ws.run("replace_in_file", {
      path: "a.txt",
      diff: "------- SEARCH\nhello\n=======\nbye\n+++++++ REPLACE",
    })
    expect(out.isError).toBe(false)
    expect(await ws.read("a.txt")).toBe("bye\n")
  })

  it("creates a new file from an empty SEARCH part and refuses edits to a missing file", async () => {
    const created = await ws.run("replace_in_file", { path: "new.txt", diff: block("", "fresh") })
    expect(created.isError).toBe(false)
    expect(await ws.read("new.txt")).toBe("fresh")
    const missing = await ws.run("replace_in_file", { path: "gone.txt", diff: block("x", "y") })
    expect(missing).toMatchObject({ isError: true, summary: "edit gone.txt: not found" })
  })

  it("rejects a diff without blocks", async () => {
    await ws.write("a.txt", "a")
    const out = await ws.run("replace_in_file", { path: "a.txt", diff: "just replace a with b" })
    expect(out.isError).toBe(true)
    expect(textOf(out)).toContain("no SEARCH/REPLACE blocks")
  })

  it("refuses to edit outside the workspace", async () => {
    const out = await ws.run("replace_in_file", { path: "../x.txt", diff: block("a", "b") })
    expect(out.isError).toBe(true)
    expect(textOf(out)).toContain("outside the workspace")
  })
})
