import { mkdtemp, rm, unlink, utimes, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { FileTracker, renderChangedFiles } from "./file-tracker.js"

let root: string
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "promptline-files-"))
})
afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

describe("FileTracker", () => {
  it("lists files changed outside the agent since it last read or wrote them", async () => {
    await writeFile(join(root, "a.ts"), "a1")
    await writeFile(join(root, "b.ts"), "b1")
    await writeFile(join(root, "c.ts"), "c1")
    const tracker = new FileTracker(root)
    await tracker.recordRead("a.ts", 1)
    await tracker.recordWrite("b.ts", 2)
    await tracker.recordRead("c.ts", 3)
    await tracker.recordRead("gone.ts", 4)
    expect(await tracker.changedSinceSeen()).toEqual([])

    await writeFile(join(root, "a.ts"), "a2") // edited by someone else
    await utimes(join(root, "b.ts"), new Date(5000), new Date(5000)) // touched, same content
    await unlink(join(root, "c.ts")) // deleted
    await writeFile(join(root, "gone.ts"), "new") // appeared
    expect(await tracker.changedSinceSeen()).toEqual(["a.ts", "c.ts", "gone.ts"])

    await tracker.acknowledge(["a.ts", "c.ts", "gone.ts"], 9)
    expect(await tracker.changedSinceSeen()).toEqual([])
    expect(tracker.toJSON().map((f) => f.path)).toEqual(["a.ts", "b.ts", "c.ts", "gone.ts"])
    const restored = new FileTracker(root, tracker.toJSON())
    expect(await restored.changedSinceSeen()).toEqual([])
  })

  it("renders a warning for the next user message, or nothing", () => {
    expect(renderChangedFiles([])).toBe("")
    const w = renderChangedFiles(["src/a.ts", "README.md"])
    expect(w).toContain("- src/a.ts\n- README.md")
    expect(w).toMatch(/^<files_changed_externally>[\s\S]*<\/files_changed_externally>$/)
  })
})
