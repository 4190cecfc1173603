import { execFileSync } from "node:child_process"
import { chmod, stat, symlink, unlink, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { cleanup, tempDir } from "../test-helpers/workspace.js"
import { readTextFile, utf8Boundary } from "./read.js"

let dir: string
beforeEach(async () => {
  dir = await tempDir()
})
afterEach(async () => {
  await cleanup(dir)
})

describe("readTextFile", () => {
  it("reads UTF-8 text, drops a BOM and turns CRLF into LF", async () => {
    await writeFile(join(dir, "a.md"), "\uFEFFline one\r\nline two\r\n")
    expect(await readTextFile(join(dir, "a.md"))).toEqual({
      ok: true,
      text: "line one\nline two\n",
      size: 23,
      capped: false,
      invalidUtf8: false,
    })
  })

  it("refuses a binary file (NUL bytes)", async () => {
    await writeFile(join(dir, "bin.md"), Buffer.from([0x23, 0x20, 0x00, 0x01, 0x02]))
    expect(await readTextFile(join(dir, "bin.md"))).toMatchObject({ ok: false, failure: "binary" })
  })

  it("decodes invalid UTF-8 with replacement characters and says so", async () => {
    await writeFile(join(dir, "bad.md"), Buffer.concat([Buffer.from("caf"), Buffer.from([0xe9]), Buffer.from("!\n")]))
    const read = await readTextFile(join(dir, "bad.md"))
    expect(read).toMatchObject({ ok: true, text: "caf\uFFFD!\n", invalidUtf8: true })
  })

  it("caps a large file at a line end", async () => {
    await writeFile(join(dir, "big.md"), "0123456789\n".repeat(20))
    const read = await readTextFile(join(dir, "big.md"), 50)
    expect(read).toMatchObject({ ok: true, text: "0123456789\n".repeat(4), capped: true, size: 220 })
  })

  it("caps a single long line without splitting a character", async () => {
    await writeFile(join(dir, "long.md"), "é".repeat(100))
    const read = await readTextFile(join(dir, "long.md"), 51)
    expect(read).toMatchObject({ ok: true, text: "é".repeat(25), capped: true, invalidUtf8: false })
  })

  it("reports a file that vanished between listing and reading", async () => {
    const file = join(dir, "gone.md")
    await writeFile(file, "soon gone")
    await stat(file)
    await unlink(file)
    expect(await readTextFile(file)).toMatchObject({ ok: false, failure: "vanished" })
  })

  it("reports a symbolic link loop", async () => {
    await symlink(join(dir, "b.md"), join(dir, "a.md"))
    await symlink(join(dir, "a.md"), join(dir, "b.md"))
    expect(await readTextFile(join(dir, "a.md"))).toMatchObject({ ok: false, failure: "symlink-loop" })
  })

  it("reports a dangling symbolic link", async () => {
    await symlink(join(dir, "nothing.md"), join(dir, "link.md"))
    expect(await readTextFile(join(dir, "link.md"))).toMatchObject({ ok: false, failure: "broken-symlink" })
  })

  it("refuses a folder and a FIFO without blocking", async () => {
    expect(await readTextFile(dir)).toMatchObject({ ok: false, failure: "not-a-file" })
    const fifo = join(dir, "pipe.md")
    execFileSync("mkfifo", [fifo])
    expect(await readTextFile(fifo)).toMatchObject({ ok: false, failure: "not-a-file" })
  })

  // /proc/self/mem is a regular file whose first page cannot be read (EIO), even by root.
  it.skipIf(process.platform !== "linux")("reports a file whose read fails", async () => {
    const link = join(dir, "mem.md")
    await symlink("/proc/self/mem", link)
    expect(await readTextFile(link)).toMatchObject({ ok: false, failure: "unreadable" })
  })

  // Permission bits do not stop root, so this case only runs as an ordinary user.
  it.skipIf(process.getuid?.() === 0)("reports an unreadable file", async () => {
    const file = join(dir, "locked.md")
    await writeFile(file, "secret")
    await chmod(file, 0o000)
    expect(await readTextFile(file)).toMatchObject({ ok: false, failure: "unreadable" })
  })
})

describe("utf8Boundary", () => {
  it("backs off to the start of a multi-byte sequence", () => {
    const bytes = Buffer.from("aé€")
    expect(utf8Boundary(bytes, 2)).toBe(1)
    expect(utf8Boundary(bytes, 3)).toBe(3)
    expect(utf8Boundary(bytes, 5)).toBe(3)
    expect(utf8Boundary(bytes, 6)).toBe(6)
  })
})
