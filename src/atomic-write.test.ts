import { mkdtemp, readdir, readFile, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { writeFileAtomic } from "./atomic-write.js"

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "pl-atomic-"))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe("writeFileAtomic", () => {
  for (const durable of [true, false]) {
    it(`replaces a file in one step and leaves no temporary file (durable: ${durable})`, async () => {
      const target = join(dir, "sub", "a.json")
      await writeFileAtomic(target, "one", { createFolders: true, durable })
      await writeFileAtomic(target, "two", { durable })
      await expect(readFile(target, "utf8")).resolves.toBe("two")
      await expect(readdir(join(dir, "sub"))).resolves.toEqual(["a.json"])
    })
  }

  it("refuses a missing folder unless asked to create it", async () => {
    await expect(writeFileAtomic(join(dir, "missing", "a"), "x", { durable: false })).rejects.toThrow(/ENOENT/)
  })
})
