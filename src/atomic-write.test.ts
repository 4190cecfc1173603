import { spawn, spawnSync } from "node:child_process"
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { commitFile, stageFile, writeFileAtomic } from "./atomic-write.js"

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

describe("temporary files of a write killed before its rename", () => {
  /** The pid of a process that has ended (it ran `node -e ""` to the end). */
  function endedPid(): number {
    const child = spawnSync(process.execPath, ["-e", ""])
    expect(child.status).toBe(0)
    return child.pid!
  }

  it("are removed by the next write of the same file; a running writer's, another file's or machine's stay", async () => {
    const target = join(dir, "log.json")
    await writeFileAtomic(target, "one")
    // This machine's tag, as a temporary file of this process carries it.
    const staged = await stageFile(target, "x")
    const host = /\.p\d+h([0-9a-f]{6})\./.exec(staged)![1]!
    await rm(staged)
    const dead = endedPid()
    const sleeper = spawn(process.execPath, ["-e", "setInterval(() => {}, 1 << 30)"], { stdio: "ignore" })
    try {
      const left = {
        killed: `.log.json.p${dead}h${host}.0a1b2c3d.tmp`,
        running: `.log.json.p${sleeper.pid}h${host}.0a1b2c3e.tmp`,
        elsewhere: `.log.json.p${dead}h${host === "000000" ? "111111" : "000000"}.0a1b2c3f.tmp`,
        unnamed: ".log.json.0a1b2c40.tmp",
        other: `.other.json.p${dead}h${host}.0a1b2c41.tmp`,
      }
      for (const name of Object.values(left)) await writeFile(join(dir, name), "{")
      await writeFileAtomic(target, "two")
      const names = await readdir(dir)
      expect(names).not.toContain(left.killed)
      for (const kept of [left.running, left.elsewhere, left.unnamed, left.other]) expect(names).toContain(kept)
      expect(await readFile(target, "utf8")).toBe("two")
      // The same holds for a write staged and committed in two steps (the file-editing tools).
      await writeFile(join(dir, left.killed), "{")
      await commitFile(await stageFile(target, "three"), target)
      expect(await readdir(dir)).not.toContain(left.killed)
    } finally {
      sleeper.kill("SIGKILL")
    }
  })

  it("a temporary file kill -9 left behind goes with the next write", async () => {
    const target = join(dir, "state.json")
    await writeFileAtomic(target, "old")
    // A child stages a write of this file, says so, and is killed before it renames.
    const module = JSON.stringify(new URL("./atomic-write.ts", import.meta.url).href)
    const script = join(await mkdtemp(join(tmpdir(), "pl-atomic-child-")), "child.mts")
    await writeFile(
      script,
      `import { stageFile } from ${module}\nawait stageFile(${JSON.stringify(target)}, "new")\nprocess.stdout.write("staged\\n")\nsetInterval(() => {}, 1 << 30)\n`,
    )
    const child = spawn(process.execPath, ["--import", "tsx", script], { stdio: ["ignore", "pipe", "inherit"] })
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (d: Buffer) => (d.toString().includes("staged") ? resolve() : undefined))
      child.on("exit", (c) => reject(new Error(`child exited early (${c})`)))
    })
    child.kill("SIGKILL")
    await new Promise((resolve) => child.once("exit", resolve))
    expect((await readdir(dir)).filter((n) => n.endsWith(".tmp"))).toHaveLength(1)
    expect(await readFile(target, "utf8")).toBe("old")
    await writeFileAtomic(target, "newer")
    expect(await readdir(dir)).toEqual(["state.json"])
  })
})
