import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { findRipgrep } from "./ripgrep.js"
import { writeSampleTree } from "./test-helpers/tree.js"
import { type TempWorkspace, tempWorkspace, textOf } from "./test-helpers/workspace.js"
import type { ExecutorEnv } from "./types.js"

let ws: TempWorkspace
let rg: string | undefined
beforeAll(async () => {
  ws = await tempWorkspace()
  await writeSampleTree(ws)
  rg = await findRipgrep(process.env)
})
afterAll(() => ws.dispose())

const JS: Partial<ExecutorEnv> = { ripgrep: false }

const expected = `Found 7 matches in 4 files:

README.md
2- 
3: Find the needle here.

src/deep/nested/thing.py
1: def needle():
2-     pass

src/keep.gen.ts
1: export const needle = 1

src/main.ts
 2- 
 3: // needle one
 4: const needle = helper()
 5: console.log(needle)
 6- 
--
10- 
11: export const last = needle`

describe("search_files with the JavaScript search", () => {
  it("finds matches grouped by file with context, honouring ignore files and skipping hidden, binary and node_modules", async () => {
    const out = await ws.run("search_files", { path: ".", regex: "needle" }, JS)
    expect(out.isError).toBe(false)
    expect(textOf(out)).toBe(expected)
    expect(out.details).toMatchObject({ engine: "javascript", matches: 7, files: 4, capped: false })
    expect(out.summary).toBe("searched /needle/ in . (7 matches)")
  })

  it("is used when rg is not on the PATH", async () => {
    const out = await ws.run("search_files", { path: "src", regex: "needle" }, { processEnv: { PATH: ws.root } })
    expect(out.details).toMatchObject({ engine: "javascript" })
  })

  it("filters files by a glob on the file name or the path", async () => {
    const byName = await ws.run("search_files", { path: ".", regex: "needle", file_pattern: "*.py" }, JS)
    expect(textOf(byName)).toContain("Found 1 match in 1 file:\n\nsrc/deep/nested/thing.py")
    const braces = await ws.run("search_files", { path: "src", regex: "needle", file_pattern: "*.{py,md}" }, JS)
    expect(braces.details).toMatchObject({ files: 1 })
  })

  it("caps the results with a notice", async () => {
    const out = await ws.run("search_files", { path: ".", regex: "needle" }, { ...JS, limits: { searchMaxResults: 2 } })
    expect(out.details).toMatchObject({ matches: 2, capped: true })
    expect(textOf(out)).toContain("[Showing the first 2 matches; there are more.")
  })

  it("says when nothing matches, and reports an invalid regex", async () => {
    expect(textOf(await ws.run("search_files", { path: ".", regex: "zzz_nothing" }, JS))).toBe("No matches found.")
    const bad = await ws.run("search_files", { path: ".", regex: "(unclosed" }, JS)
    expect(bad.isError).toBe(true)
    expect(textOf(bad)).toContain("invalid regex")
  })

  it("searches one file, and refuses a path outside the workspace", async () => {
    const one = await ws.run("search_files", { path: "src/main.ts", regex: "last" }, JS)
    expect(textOf(one)).toContain("11: export const last = needle")
    const outside = await ws.run("search_files", { path: "..", regex: "x" }, JS)
    expect(outside.isError).toBe(true)
  })
})

describe.runIf(await findRipgrep(process.env))("search_files with ripgrep", () => {
  it("is used when rg is on the PATH and gives the same output as the JavaScript search", async () => {
    const out = await ws.run("search_files", { path: ".", regex: "needle" })
    expect(out.details).toMatchObject({ engine: "ripgrep" })
    expect(textOf(out)).toBe(expected)
  })

  it.each([
    ["src", "needle", undefined],
    [".", "needle", "*.py"],
    [".", "NEEDLE", undefined],
    ["src/main.ts", "needle|other", undefined],
    [".", "^\\s+return", "*.ts"],
  ])("agrees with the JavaScript search on %s /%s/ %s", async (path, regex, file_pattern) => {
    const input = { path, regex, file_pattern }
    const viaRg = await ws.run("search_files", input, { ripgrep: rg })
    const viaJs = await ws.run("search_files", input, JS)
    expect(viaRg.details).toMatchObject({ engine: "ripgrep" })
    expect(textOf(viaRg)).toBe(textOf(viaJs))
  })

  it("falls back to the JavaScript search for look-around, which ripgrep's engine rejects", async () => {
    const out = await ws.run("search_files", { path: "src", regex: "needle(?= one)" })
    expect(out.details).toMatchObject({ engine: "javascript", matches: 1 })
    expect(textOf(out)).toContain("3: // needle one")
  })

  it("skips named pipes instead of blocking on them", async () => {
    const { execFileSync } = await import("node:child_process")
    const { rm } = await import("node:fs/promises")
    const fifo = `${ws.root}/src/pipe.ts`
    execFileSync("mkfifo", [fifo])
    try {
      for (const extra of [{ ripgrep: rg }, JS]) {
        const out = await ws.run("search_files", { path: "src", regex: "needle" }, extra)
        expect(out.details).toMatchObject({ matches: 6 })
      }
    } finally {
      await rm(fifo)
    }
  })

  it("caps the results and reports an invalid regex", async () => {
    const capped = await ws.run("search_files", { path: ".", regex: "needle" }, { limits: { searchMaxResults: 2 } })
    expect(capped.details).toMatchObject({ engine: "ripgrep", matches: 2, capped: true })
    const bad = await ws.run("search_files", { path: ".", regex: "(unclosed" })
    expect(bad.isError).toBe(true)
  })
})
