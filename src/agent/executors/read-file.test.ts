import { execFileSync } from "node:child_process"
import { symlink } from "node:fs/promises"
import path from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { type TempWorkspace, tempWorkspace, textOf } from "./test-helpers/workspace.js"

let ws: TempWorkspace
beforeEach(async () => {
  ws = await tempWorkspace()
})
afterEach(() => ws.dispose())

const numbered = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n")

describe("read_file", () => {
  it("returns the whole file and reports the line count", async () => {
    await ws.write("src/a.ts", "const a = 1\nconst b = 2\n")
    const out = await ws.run("read_file", { path: "src/a.ts" })
    expect(out.isError).toBe(false)
    expect(out.content).toBe("const a = 1\nconst b = 2")
    expect(out.summary).toBe("read src/a.ts (2 lines)")
    expect(out.touched).toEqual([{ path: "src/a.ts", access: "read" }])
  })

  it("returns an inclusive 1-based range with a note of where it sits", async () => {
    await ws.write("f.txt", `${numbered(10)}\n`)
    const out = await ws.run("read_file", { path: "f.txt", start_line: 3, end_line: 5 })
    expect(textOf(out)).toBe("line 3\nline 4\nline 5\n\n[Lines 3-5 of 10.]")
    expect(out.summary).toBe("read f.txt (lines 3-5 of 10)")
  })

  it("accepts line numbers given as text, as the XML dialect sends them", async () => {
    await ws.write("f.txt", numbered(4))
    const out = await ws.run("read_file", { path: "f.txt", start_line: "2", end_line: "2" })
    expect(textOf(out)).toContain("line 2\n")
    expect(out.isError).toBe(false)
  })

  it("clamps an end past the last line and refuses a start past it", async () => {
    await ws.write("f.txt", numbered(3))
    const clamped = await ws.run("read_file", { path: "f.txt", start_line: 2, end_line: 99 })
    expect(textOf(clamped)).toBe("line 2\nline 3\n\n[Lines 2-3 of 3.]")
    const past = await ws.run("read_file", { path: "f.txt", start_line: 9 })
    expect(past.isError).toBe(true)
    expect(textOf(past)).toContain("has 3 lines")
  })

  it("refuses a range that ends before it starts", async () => {
    await ws.write("f.txt", numbered(3))
    const out = await ws.run("read_file", { path: "f.txt", start_line: 3, end_line: 1 })
    expect(out.isError).toBe(true)
  })

  it("prefixes line numbers when the env asks for them", async () => {
    await ws.write("f.txt", numbered(10))
    const out = await ws.run("read_file", { path: "f.txt", start_line: 9 }, { readLineNumbers: true })
    expect(textOf(out).split("\n").slice(0, 2)).toEqual([" 9| line 9", "10| line 10"])
  })

  it("cuts a large file at the byte limit with a visible notice", async () => {
    await ws.write("big.txt", numbered(1000))
    const out = await ws.run("read_file", { path: "big.txt" }, { limits: { readMaxBytes: 100 } })
    const text = textOf(out)
    expect(text.startsWith("line 1\nline 2\n")).toBe(true)
    expect(text).toMatch(
      /\[Showing lines 1-\d+ of 1000: the rest was cut at the 100-byte limit\. Read more with start_line=\d+\.\]/,
    )
    expect(out.details).toMatchObject({ truncated: true, totalLines: 1000 })
  })

  it("cuts at the line limit when no range is given", async () => {
    await ws.write("big.txt", numbered(50))
    const out = await ws.run("read_file", { path: "big.txt" }, { limits: { readMaxLines: 20 } })
    expect(textOf(out)).toContain(
      "[Showing lines 1-20 of 50: the rest was cut at the 20-line limit. Read more with start_line=21.]",
    )
  })

  it("keeps the head of a single line longer than the whole budget", async () => {
    await ws.write("min.js", "x".repeat(5000))
    const out = await ws.run("read_file", { path: "min.js" }, { limits: { readMaxBytes: 100 } })
    expect(textOf(out)).toContain("[… line cut at 100 characters]")
    expect(textOf(out).length).toBeLessThan(400)
  })

  it("reports binary files (NUL bytes, or mostly invalid UTF-8) instead of dumping them", async () => {
    await ws.write("a.bin", Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x00, 0x01, 0x02]))
    await ws.write("b.dat", Buffer.from(Array.from({ length: 200 }, (_, i) => 0x80 + (i % 60))))
    for (const file of ["a.bin", "b.dat"]) {
      const out = await ws.run("read_file", { path: file })
      expect(out.isError).toBe(true)
      expect(textOf(out)).toContain("binary")
    }
  })

  it("reads UTF-8 text with a few odd bytes as text", async () => {
    await ws.write(
      "latin.txt",
      Buffer.concat([Buffer.from("caf"), Buffer.from([0xe9]), Buffer.from(" au lait, très bon ".repeat(5))]),
    )
    expect((await ws.run("read_file", { path: "latin.txt" })).isError).toBe(false)
  })

  it("returns images as image blocks", async () => {
    const png = Buffer.from(
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
      "base64",
    )
    await ws.write("dot.png", png)
    const out = await ws.run("read_file", { path: "dot.png" })
    expect(out.isError).toBe(false)
    expect(Array.isArray(out.content)).toBe(true)
    const blocks = out.content as { type: string; mediaType?: string; data?: string }[]
    expect(blocks[1]).toEqual({ type: "image", mediaType: "image/png", data: png.toString("base64") })
  })

  it("says so for an empty file, a missing file and a folder", async () => {
    await ws.write("empty.txt", "")
    expect(textOf(await ws.run("read_file", { path: "empty.txt" }))).toContain("is empty")
    const missing = await ws.run("read_file", { path: "nope.txt" })
    expect(missing).toMatchObject({ isError: true, summary: "read nope.txt: not found" })
    await ws.write("dir/x.txt", "x")
    expect((await ws.run("read_file", { path: "dir" })).isError).toBe(true)
  })

  it.runIf(process.platform !== "win32")("refuses a named pipe instead of blocking on it", async () => {
    execFileSync("mkfifo", [path.join(ws.root, "pipe")])
    const out = await ws.run("read_file", { path: "pipe" })
    expect(out).toMatchObject({ isError: true, summary: "read pipe: not a file" })
  })

  it("refuses to read through a symlink that leads outside the workspace", async () => {
    const other = await tempWorkspace()
    try {
      await other.write("secret.txt", "top secret")
      await symlink(path.join(other.root, "secret.txt"), path.join(ws.root, "link.txt"))
      const out = await ws.run("read_file", { path: "link.txt" })
      expect(out.isError).toBe(true)
      expect(textOf(out)).not.toContain("top secret")
      expect(textOf(out)).toContain("symbolic link")
    } finally {
      await other.dispose()
    }
  })
})
