import type { BigIntStats } from "node:fs"
import { writeFile } from "node:fs/promises"
import { join } from "node:path"
import fc from "fast-check"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { cleanup, tempDir } from "../test-helpers/workspace.js"
import { readTextFile } from "./read.js"
import { ReadCache, settled, versionOf } from "./read-cache.js"

let dir: string
beforeEach(async () => {
  dir = await tempDir()
})
afterEach(async () => {
  await cleanup(dir)
})

/** Stat fields the cache looks at; the rest of a BigIntStats does not matter here. */
const stats = (fields: { ino?: bigint; size?: bigint; mtimeNs: bigint; ctimeNs?: bigint; atimeNs: bigint }) =>
  ({ dev: 1n, ino: 7n, size: 4n, ctimeNs: fields.mtimeNs, ...fields }) as unknown as BigIntStats

describe("readTextFile, read again in one process", () => {
  it("gives the text on disk after every rewrite, same size and same tick included", async () => {
    const file = join(dir, "AGENTS.md")
    // Rewrites of one length right after a read are the case a cache keyed on size and times could miss.
    const texts = fc.array(fc.stringMatching(/^[a-d]{6}$/), { minLength: 1, maxLength: 12 })
    await fc.assert(
      fc.asyncProperty(texts, async (sequence) => {
        for (const text of sequence) {
          await writeFile(file, text)
          expect(await readTextFile(file)).toMatchObject({ ok: true, text })
          expect(await readTextFile(file)).toMatchObject({ ok: true, text })
        }
      }),
      { numRuns: 30 },
    )
  })

  it("gives a fresh copy each time, so a caller changing its outcome changes no later one", async () => {
    const file = join(dir, "CLAUDE.md")
    await writeFile(file, "rule\n")
    for (let i = 0; i < 3; i++) {
      const read = await readTextFile(file)
      expect(read).toMatchObject({ ok: true, text: "rule\n" })
      if (read.ok) read.text = "changed"
    }
  })
})

describe("settled", () => {
  it("holds only when the read left an access time after both change times and the version held", () => {
    const before = stats({ mtimeNs: 10n, atimeNs: 5n })
    expect(settled(before, stats({ mtimeNs: 10n, atimeNs: 11n }))).toBe(true)
    expect(settled(before, stats({ mtimeNs: 10n, atimeNs: 10n }))).toBe(false)
    expect(settled(before, stats({ mtimeNs: 10n, ctimeNs: 12n, atimeNs: 11n }))).toBe(false)
    expect(settled(before, stats({ mtimeNs: 10n, size: 5n, atimeNs: 11n }))).toBe(false)
    expect(settled(before, stats({ mtimeNs: 10n, ino: 8n, atimeNs: 11n }))).toBe(false)
  })
})

describe("ReadCache", () => {
  it("answers only for the version it kept, and drops a stale entry", () => {
    const cache = new ReadCache<string>()
    const v1 = versionOf(stats({ mtimeNs: 1n, atimeNs: 2n }))
    const v2 = versionOf(stats({ mtimeNs: 3n, atimeNs: 4n }))
    cache.set("a", v1, "one", 3)
    expect(cache.get("a", v1)).toBe("one")
    expect(cache.get("a", v2)).toBeUndefined()
    expect(cache.get("a", v1)).toBeUndefined()
  })

  it("stays within its byte bound, the oldest going first, and keeps no text over the entry bound", () => {
    const cache = new ReadCache<string>(10, 6)
    cache.set("a", "v", "aaaa", 4)
    cache.set("b", "v", "bbbb", 4)
    cache.set("c", "v", "cccc", 4)
    cache.set("d", "v", "ddddddd", 7)
    expect(["a", "b", "c", "d"].map((k) => cache.get(k, "v"))).toEqual([undefined, "bbbb", "cccc", undefined])
  })
})
