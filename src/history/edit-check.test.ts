import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { SOUND_EDITS, UNSOUND_EDITS } from "../../test/fixtures/history/unsound-edits.js"
import { ChangeLog } from "./change-log.js"
import { loadChangeLogFor } from "./change-log-check.js"
import type { Message } from "./message.js"

const fixtures = join(dirname(fileURLToPath(import.meta.url)), "../../test/fixtures/history")
let dir: string
let history: Message[]
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "promptline-edit-check-"))
  history = JSON.parse(await readFile(join(fixtures, "small-history.json"), "utf8")) as Message[]
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe("a change log is checked against its history wherever it is read", () => {
  it("ChangeLog.load and fromJSON refuse each unsound edit with change-log-mismatch, naming it", async () => {
    const file = join(dir, "log.json")
    for (const { edit, why } of UNSOUND_EDITS) {
      const data = { schema: 1, edits: [SOUND_EDITS[0], edit] }
      await writeFile(file, JSON.stringify(data))
      const label = JSON.stringify(edit)
      await expect(ChangeLog.load(file, history), label).rejects.toMatchObject({ code: "change-log-mismatch" })
      await expect(ChangeLog.load(file, history), label).rejects.toThrow(`edit 2 (${edit.kind})`)
      expect(() => ChangeLog.fromJSON(data, history), label).toThrow(why)
      // Without the history nothing can be checked: the log is read as it is.
      expect((await ChangeLog.load(file)).edits, label).toHaveLength(2)
    }
  })

  it("loadChangeLogFor (run --resume) sets the same logs aside, with the same reasons", async () => {
    const file = join(dir, "session-log.json")
    for (const { edit, why } of UNSOUND_EDITS) {
      await writeFile(file, JSON.stringify({ schema: 1, edits: [edit] }))
      const loaded = await loadChangeLogFor(file, history)
      expect(loaded.changeLog.edits).toEqual([])
      expect(loaded.diagnostics).toEqual([expect.objectContaining({ code: "change-log-rebuilt", path: file })])
      expect(loaded.diagnostics[0]!.message).toContain(why)
    }
  })

  it("a sound log loads the same everywhere and keeps every call paired with its result", async () => {
    const file = join(dir, "sound.json")
    await writeFile(file, JSON.stringify({ schema: 1, edits: SOUND_EDITS }))
    const log = await ChangeLog.load(file, history)
    expect(log.edits).toEqual(SOUND_EDITS)
    expect((await loadChangeLogFor(file, history)).diagnostics).toEqual([])
    const view = log.view(history)
    expect(view.map((m) => m.id)).toEqual(["m0", "m1", "m6", "m7", "m8"])
    const uses = view.flatMap((m) => m.content.flatMap((b) => (b.type === "tool_use" ? [b.id] : [])))
    const results = view.flatMap((m) => m.content.flatMap((b) => (b.type === "tool_result" ? [b.toolUseId] : [])))
    expect(results.every((id) => uses.includes(id))).toBe(true)
  })
})
