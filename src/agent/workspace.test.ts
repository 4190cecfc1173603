import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import path from "node:path"
import fc from "fast-check"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { isInside, resolvePath } from "./workspace.js"

let base: string
let root: string
let outside: string

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), "promptline-ws-")))
  root = path.join(base, "project")
  outside = path.join(base, "elsewhere")
  await mkdir(path.join(root, "src"), { recursive: true })
  await mkdir(outside, { recursive: true })
  await writeFile(path.join(root, "src", "a.ts"), "export {}\n")
  await writeFile(path.join(outside, "secret.txt"), "secret\n")
})

afterEach(async () => {
  await rm(base, { recursive: true, force: true })
})

describe("resolvePath", () => {
  it("resolves a relative path inside the workspace and shows it relative", async () => {
    const r = await resolvePath({ root }, "src/a.ts", "read")
    expect(r).toMatchObject({ ok: true, display: "src/a.ts", exists: true, absolute: path.join(root, "src", "a.ts") })
  })

  it("accepts a path that does not exist yet, below folders that do not exist either", async () => {
    const r = await resolvePath({ root }, "new/deep/file.txt", "write")
    expect(r).toMatchObject({ ok: true, display: "new/deep/file.txt", exists: false })
  })

  it("shows the root itself as '.'", async () => {
    expect(await resolvePath({ root }, ".", "read")).toMatchObject({ ok: true, display: "." })
  })

  it("refuses '..' that leaves the workspace", async () => {
    const r = await resolvePath({ root }, "../elsewhere/secret.txt", "read")
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.reason).toContain("outside the workspace")
  })

  it("refuses an absolute path outside the workspace", async () => {
    const r = await resolvePath({ root }, path.join(outside, "secret.txt"), "write")
    expect(r.ok).toBe(false)
  })

  it("accepts an absolute path inside the workspace", async () => {
    const r = await resolvePath({ root }, path.join(root, "src", "a.ts"), "write")
    expect(r).toMatchObject({ ok: true, display: "src/a.ts" })
  })

  it("does not mistake a sibling folder with the same prefix for the workspace", async () => {
    await mkdir(`${root}-other`)
    const r = await resolvePath({ root }, `${root}-other/x.txt`, "write")
    expect(r.ok).toBe(false)
  })

  it("accepts names that merely start with two dots", async () => {
    const r = await resolvePath({ root }, "..hidden/file", "write")
    expect(r).toMatchObject({ ok: true, display: "..hidden/file" })
  })

  it("refuses a symlinked folder that leads outside, naming the symlink as the cause", async () => {
    await symlink(outside, path.join(root, "link"))
    const r = await resolvePath({ root }, "link/secret.txt", "read")
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.reason).toContain("symbolic link")
    const create = await resolvePath({ root }, "link/new/file.txt", "write")
    expect(create.ok).toBe(false)
  })

  it("refuses a symlinked file that leads outside", async () => {
    await symlink(path.join(outside, "secret.txt"), path.join(root, "innocent.txt"))
    expect((await resolvePath({ root }, "innocent.txt", "write")).ok).toBe(false)
  })

  it("refuses a dangling symlink, whose target could be created anywhere", async () => {
    await symlink(path.join(outside, "not-yet.txt"), path.join(root, "dangling.txt"))
    const r = await resolvePath({ root }, "dangling.txt", "write")
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.reason).toContain("does not exist")
  })

  it("accepts a symlink that stays inside the workspace", async () => {
    await symlink(path.join(root, "src"), path.join(root, "alias"))
    const r = await resolvePath({ root }, "alias/a.ts", "write")
    expect(r).toMatchObject({ ok: true, real: path.join(root, "src", "a.ts") })
  })

  it("refuses a loop of symlinks", async () => {
    await symlink(path.join(root, "loop-b"), path.join(root, "loop-a"))
    await symlink(path.join(root, "loop-a"), path.join(root, "loop-b"))
    const r = await resolvePath({ root }, "loop-a/x", "read")
    expect(r.ok).toBe(false)
  })

  it("allows extra read-write roots and read-only roots", async () => {
    const file = path.join(outside, "secret.txt")
    expect((await resolvePath({ root, allowedRoots: [outside] }, file, "write")).ok).toBe(true)
    expect((await resolvePath({ root, readRoots: [outside] }, file, "read")).ok).toBe(true)
    const write = await resolvePath({ root, readRoots: [outside] }, file, "write")
    expect(write.ok).toBe(false)
    if (!write.ok) expect(write.reason).toContain("read-only")
  })

  it("resolves ~/ against the given home, which is outside the workspace", async () => {
    const r = await resolvePath({ root, home: outside }, "~/secret.txt", "read")
    expect(r.ok).toBe(false)
    const allowed = await resolvePath({ root, home: outside, readRoots: [outside] }, "~/secret.txt", "read")
    expect(allowed).toMatchObject({ ok: true, exists: true })
  })

  it("refuses a NUL character", async () => {
    expect((await resolvePath({ root }, "a\0b", "read")).ok).toBe(false)
  })

  it("never lets a path built from '..', names and symlinks end outside the workspace", async () => {
    await symlink(outside, path.join(root, "out"))
    await symlink(path.join(root, "src"), path.join(root, "in"))
    const segment = fc.constantFrom("..", ".", "src", "out", "in", "x", "a.ts", "secret.txt", "elsewhere", "project")
    await fc.assert(
      fc.asyncProperty(fc.array(segment, { minLength: 1, maxLength: 6 }), async (parts) => {
        const r = await resolvePath({ root }, parts.join("/"), "write")
        if (r.ok) expect(isInside(root, r.real)).toBe(true)
      }),
      { numRuns: 200 },
    )
  })
})
