import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { watchConfigFiles } from "./config-watch.js"

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Waits until `done` holds (at most 10 s), then `settle` ms more for anything that would follow. */
async function until(done: () => boolean, settle: number): Promise<void> {
  for (let i = 0; i < 1000 && !done(); i++) await pause(10)
  await pause(settle)
}

describe("watchConfigFiles", () => {
  let dir = ""
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it("handles each change of a file's text once, though the folder watch and the poll both hear it", async () => {
    dir = await mkdtemp(join(tmpdir(), "pl-watch-"))
    const file = join(dir, "promptline.config.json")
    await writeFile(file, '{ "a": 1 }')
    let calls = 0
    const watch = watchConfigFiles([file], async () => void calls++, { debounceMs: 20, pollMs: 50 })
    try {
      // The poll (every 50 ms) hears the change again well within the 400 ms that follow the first call.
      await writeFile(file, '{ "a": 2 }')
      await until(() => calls >= 1, 400)
      expect(calls).toBe(1)
      // Saved again as it was: nothing to handle.
      await writeFile(file, '{ "a": 2 }')
      await pause(400)
      expect(calls).toBe(1)
      await writeFile(file, '{ "a": 3 }')
      await until(() => calls >= 2, 400)
      expect(calls).toBe(2)
    } finally {
      watch.close()
    }
  })
})
